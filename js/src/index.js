// The package's main entry: the parser (parse.js, its module instantiated at import) and the
// writers (format.js, their module instantiated at the first writer call). `tokensieve/parse`
// and `tokensieve/format` are each half alone.
export * from './parse.js';
export * from './format.js';
