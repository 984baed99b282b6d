<?php

declare(strict_types=1);

namespace TokenSieve;

/**
 * Decodes a provider's streaming response body (SSE, a streamed JSON array, AWS event stream)
 * into events: docs/providers.md.
 *
 *     $decoder = new Decoder(['provider' => 'openai-chat', 'text_dialect' => 'hermes',
 *                             'tools' => [['name' => 'get_weather', 'schema' => $schema]]]);
 *     foreach ($decoder->stream($response->getBody()) as $event) {
 *         match ($event['event']) {
 *             'chunk' => $event['visible'] ? print($event['text']) : null,
 *             'finish' => $usage = $event['usage'] ?? null,
 *             'error' => throw new RuntimeException($event['message']),
 *             default => null,
 *         };
 *     }
 *
 * Events are TokenSieve's arrays plus 'finish' and 'error' (see the top of this file).
 */
final class Decoder
{
    private const PROVIDERS = ['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'bedrock', 'ollama'];

    use PullsEvents;

    private const KIND = 'Decoder';
    private const C = ['feed' => 'tokensieve_decoder_feed', 'finish' => 'tokensieve_decoder_finish',
                       'reset' => 'tokensieve_decoder_reset', 'next' => 'tokensieve_decoder_next',
                       'next_batch' => 'tokensieve_decoder_next_batch', 'feed_batch' => 'tokensieve_decoder_feed_batch',
                       'free' => 'tokensieve_decoder_free', 'last_error' => 'tokensieve_decoder_last_error'];

    /**
     * @param array<string,mixed>|string $config {provider, text_dialect, max_frame_bytes, and
     *        every parser key but dialect (tools, id_prefix, on_malformed, …) for the text dialect},
     *        as an array or as JSON text
     * @param bool $accumulate block_complete events carry 'content' / 'input' (default true)
     * @param ?string $library path of libtokensieve (only the first load of a process uses it)
     * @param ?string $header path of tokensieve_php.h (likewise)
     * @throws ConfigException when the config is rejected (the message names the key)
     * @throws LibraryException when the library cannot be found or loaded
     */
    public function __construct(
        array|string $config,
        bool $accumulate = true,
        ?string $library = null,
        ?string $header = null,
    ) {
        $ffi = Library::load($library, $header);
        $json = TokenSieve::configJson($config);
        $out = $ffi->new('tokensieve_decoder*');
        $rc = $ffi->tokensieve_decoder_new_json($json, \strlen($json), $accumulate ? 1 : 0, \FFI::addr($out));
        if ($rc !== 0 || \FFI::isNull($out)) {
            throw TokenSieve::error($ffi->tokensieve_decoder_last_error(null), $rc === 0 ? -3 : $rc);
        }
        $this->adopt($ffi, $out);
    }

    /** Whether the library decodes $provider ('openai-chat', 'anthropic', …). */
    public static function supported(string $provider): bool
    {
        $code = array_search($provider, self::PROVIDERS, true);
        return $code !== false && Library::load()->tokensieve_provider_supported($code) === 1;
    }

    /**
     * Decodes a whole body with a new decoder.
     * @param array<string,mixed>|string $config
     * @return list<array<string,mixed>>
     */
    public static function decode(array|string $config, string $body): array
    {
        $decoder = new self($config);
        return [...$decoder->feed($body), ...$decoder->finish()];
    }
}
