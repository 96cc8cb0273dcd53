// CUDA versions compared as numbers, part by part: 12.10 is newer than 12.8.
export function cudaAtLeast(have: string, need: string): boolean {
  const [a, b] = [parts(have), parts(need)];
  if (!a || !b) return false; // unknown ("" or garbled) never satisfies a requirement
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const diff = (a[i] ?? 0) - (b[i] ?? 0);
    if (diff !== 0) return diff > 0;
  }
  return true;
}

function parts(version: string): number[] | null {
  return /^\d+(\.\d+)*$/.test(version) ? version.split(".").map(Number) : null;
}
