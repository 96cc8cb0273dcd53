// The README and docs/ stand alone in a fresh clone: every link points inside the repository, at a
// file it has; no `../` path mentioned anywhere leads out of it. And the operator's lists of the Worker's secrets
// and vars (.dev.vars.example, docs/deploy.md) name every one wrangler.toml has.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";

const ROOT = resolve(import.meta.dirname, "../..");

/** README.md and every Markdown file under docs/, repo-relative. */
function documents(): string[] {
  const found = ["README.md"];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".md")) found.push(path);
    }
  };
  walk("docs");
  return found;
}

/** Link targets in Markdown text: inline links and images, reference definitions, HTML href and src. */
function linkTargets(text: string): string[] {
  const targets: string[] = [];
  for (const match of text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(match[1]!);
  for (const match of text.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)) targets.push(match[1]!);
  for (const match of text.matchAll(/\b(?:href|src)\s*=\s*["']([^"']+)["']/g)) targets.push(match[1]!);
  return targets;
}

/** Why a link target from `file` does not stand alone, or null when it does. */
function brokenLink(file: string, target: string, exists: (path: string) => boolean, ignored: readonly string[]): string | null {
  if (/^(?:https?:|mailto:)/i.test(target) || target.startsWith("#")) return null;
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return `${target}: not a web address or a path in the repository`;
  const path = decodeURIComponent(target.replace(/[#?].*$/, ""));
  if (path.startsWith("/")) return `${target}: an absolute path, outside the repository`;
  const inRepo = relative(ROOT, resolve(ROOT, dirname(file), path));
  if (inRepo.startsWith("..")) return `${target}: outside the repository`;
  if (ignored.some((folder) => inRepo === folder.replace(/\/$/, "") || inRepo.startsWith(folder))) return `${target}: a build output, not in a fresh clone`;
  if (!exists(inRepo)) return `${target}: no such file in the repository`;
  return null;
}

/** Mentions of a relative path climbing out of the file's folder (`../...`) anywhere in `file`'s text that lead outside the repository. */
function mentionsOutside(file: string, text: string): string[] {
  const mentions = [...text.matchAll(/(?:^|[\s(`'"[<])(\.\.\/[^\s`'")\]>]*)/g)].map((match) => match[1]!);
  return mentions.filter((mention) => relative(ROOT, resolve(ROOT, dirname(file), mention)).startsWith(".."));
}

/** The folders .gitignore leaves out of a clone (`dist/`, `node_modules/` ...). */
const ignoredFolders = readFileSync(join(ROOT, ".gitignore"), "utf8").split("\n").map((line) => line.trim())
  .filter((line) => line.endsWith("/") && !line.startsWith("#") && !line.startsWith("!"));
const existsInRepo = (path: string) => existsSync(join(ROOT, path)) && (statSync(join(ROOT, path)).isFile() || statSync(join(ROOT, path)).isDirectory());

describe("the documentation stands alone", () => {
  it.each(documents())("%s links only to files the repository has, and mentions no path outside it", (file) => {
    const text = readFileSync(join(ROOT, file), "utf8");
    const problems = linkTargets(text).map((target) => brokenLink(file, target, existsInRepo, ignoredFolders)).filter((problem) => problem !== null);
    problems.push(...mentionsOutside(file, text).map((mention) => `${mention}: a path outside the repository`));
    expect(problems).toEqual([]);
  });

  it("finds every kind of link, and refuses what a fresh clone would not have", () => {
    const text = '[a](docs/deploy.md#x) ![b](<docs/screenshots/overview.png> "t")\n[c]: ../notes.md\n<a href="/etc/passwd">d</a> [e](https://example.com)';
    expect(linkTargets(text)).toEqual(["docs/deploy.md#x", "docs/screenshots/overview.png", "https://example.com", "../notes.md", "/etc/passwd"]);
    const check = (target: string) => brokenLink("README.md", target, existsInRepo, ignoredFolders);
    expect(check("docs/deploy.md#a-first-customer")).toBeNull();
    expect(check("https://developers.cloudflare.com/workers/")).toBeNull();
    expect(check("#quick-start")).toBeNull();
    expect(check("../shared/design/notes.md")).toMatch(/outside the repository/);
    expect(check("docs/../../outside.md")).toMatch(/outside the repository/);
    expect(check("/work/notes.md")).toMatch(/absolute path/);
    expect(check("file:///tmp/x.md")).toMatch(/not a web address/);
    expect(check("docs/no-such-file.md")).toMatch(/no such file/);
    expect(check("dist/dashboard/index.html")).toMatch(/build output/);
    expect(brokenLink("docs/api.md", "protocol.md", existsInRepo, ignoredFolders)).toBeNull();
    expect(brokenLink("docs/api.md", "../README.md", existsInRepo, ignoredFolders)).toBeNull();
    const mentions = "see `../shared/spec.md` and (../x) but not a/../b or ..";
    expect(mentionsOutside("README.md", mentions)).toEqual(["../shared/spec.md", "../x"]);
    expect(mentionsOutside("docs/api.md", mentions)).toEqual([]);
    expect(mentionsOutside("docs/api.md", "see ../../shared/spec.md")).toEqual(["../../shared/spec.md"]);
  });
});

interface WorkerConfig {
  vars: Record<string, unknown>;
  secrets?: { required?: string[] };
}

const configOf = (environment?: string): WorkerConfig =>
  unstable_readConfig({ config: join(ROOT, "wrangler.toml"), env: environment }, { hideWarnings: true });

describe("every secret and var of wrangler.toml is documented", () => {
  const configs = [configOf(), configOf("staging"), configOf("production")];
  const names = [...new Set(configs.flatMap((config) => [...Object.keys(config.vars), ...(config.secrets?.required ?? [])]))].sort();

  it("wrangler.toml has the secrets and vars this test is about", () => {
    expect(names).toEqual(expect.arrayContaining(["ADMIN_TOKEN", "INSTANCE_TOKEN_SECRET", "RATE_LIMIT_RPS"]));
  });

  it(".dev.vars.example has a line for each, a secret set and a var commented out", () => {
    const example = readFileSync(join(ROOT, ".dev.vars.example"), "utf8");
    const secrets = new Set(configs.flatMap((config) => config.secrets?.required ?? []));
    const missing = names.filter((name) => !new RegExp(`^${secrets.has(name) ? "" : "# "}${name}=`, "m").test(example));
    expect(missing).toEqual([]);
  });

  it("docs/deploy.md names each in its tables", () => {
    const deploy = readFileSync(join(ROOT, "docs/deploy.md"), "utf8");
    expect(names.filter((name) => !deploy.includes(`| \`${name}\` |`))).toEqual([]);
  });
});
