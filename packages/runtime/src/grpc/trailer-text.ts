/**
 * gRPC text metadata carries printable ASCII only (grpc-js throws on anything else, and a throw while
 * answering an error took the whole service down). Error params and details are free text (’, é,
 * newlines), so each character outside printable ASCII, and `%` itself, travels percent-encoded as UTF-8.
 */
export function toTrailerText(text: string): string {
  return text.replace(/[^ -$&-~]/gu, (c) => {
    try {
      return encodeURIComponent(c);
    } catch {
      return '%EF%BF%BD'; // a lone surrogate (no UTF-8 form): U+FFFD, as a JSON text decoder would
    }
  });
}

/** The text `toTrailerText` encoded; a value that is not such an encoding is kept as it arrived. */
export function fromTrailerText(value: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
