// The embedded modules' bytes from their base64 text (atob: Node ≥ 16, Deno, Bun, browsers).
export function decodeBase64(s) {
  const bin = atob(s);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}
