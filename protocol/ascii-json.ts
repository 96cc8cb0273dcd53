// JSON that may ride as an HTTP header value: every character outside printable ASCII is escaped
// (JSON.stringify already escapes the control characters), so no header rule can refuse or alter it.

export function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Whether `text` is made only of what `asciiJson` writes. */
export const isPrintableAscii = (text: string): boolean => PRINTABLE_ASCII.test(text);
