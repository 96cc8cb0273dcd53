// Release versions as the container tools print them ("1.17.8", "1.1.5+ds1", "1.0.0-rc10"), read
// and compared the way their projects number releases: numeric parts in order, and a pre-release
// (after "-") older than the release it leads to. Build metadata (after "+", a distribution's
// packaging) does not count.

export interface Version {
  parts: [number, number, number];
  /** A pre-release ("rc10", "rc.3"): older than the same version without one. */
  preRelease: boolean;
  text: string;
}

/** Reads the first `MAJOR.MINOR[.PATCH]` version in `text`, or null when there is none. */
export function parseVersion(text: string): Version | null {
  const match = /(?<![\d.])v?(\d+)\.(\d+)(?:\.(\d+))?(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.+-]+)?/.exec(text);
  if (!match) return null;
  const [whole, major = "0", minor = "0", patch = "0", preRelease] = match;
  return { parts: [Number(major), Number(minor), Number(patch)], preRelease: preRelease !== undefined, text: whole.replace(/^v/, "") };
}

/** Negative when `a` is older than `b`, zero when the same release, positive when newer. */
export function compareVersions(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) {
    const difference = a.parts[i]! - b.parts[i]!;
    if (difference !== 0) return difference;
  }
  return Number(b.preRelease) - Number(a.preRelease);
}

/** The version `text` names, for constants; throws on a malformed one. */
export function version(text: string): Version {
  const parsed = parseVersion(text);
  if (!parsed) throw new Error(`not a version: ${text}`);
  return parsed;
}
