// A tar archive holding one empty directory, for the Engine API's "put archive" (PUT
// /containers/{id}/archive): how the agent creates /data in a container before it first starts.
const BLOCK = 512;

/** One ustar directory entry `name/` owned by root with `mode`, then the end-of-archive blocks. */
export function directoryTar(name: string, mode: number): Buffer {
  const header = Buffer.alloc(BLOCK);
  const field = (offset: number, length: number, text: string) => header.write(text.slice(0, length), offset, "ascii");
  const octal = (value: number, length: number) => `${value.toString(8).padStart(length - 1, "0")}\0`;
  field(0, 100, `${name}/`);
  field(100, 8, octal(mode, 8));
  field(108, 8, octal(0, 8)); // uid
  field(116, 8, octal(0, 8)); // gid
  field(124, 12, octal(0, 12)); // size
  field(136, 12, octal(0, 12)); // mtime
  field(148, 8, " ".repeat(8)); // checksum, counted as spaces while summing
  field(156, 1, "5"); // directory
  field(257, 8, "ustar\x0000");
  let sum = 0;
  for (const byte of header) sum += byte;
  field(148, 8, `${sum.toString(8).padStart(6, "0")}\0 `);
  return Buffer.concat([header, Buffer.alloc(2 * BLOCK)]);
}
