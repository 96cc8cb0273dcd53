// The README's code blocks as its walkthrough test reads them. Every `sh` and `ts` block carries a
// mark, an HTML comment on the line before it (a reader of the rendered page sees nothing):
//   <!-- walkthrough: NAME -->                    run, in the README's order, in one shell session
//   <!-- walkthrough: NAME, skipped: REASON -->   a walkthrough the local stack cannot run (Stripe, a GPU host)
//   <!-- not a walkthrough: REASON -->             setup, a reference list, a long run
// An `sh` block is split into commands (a line and its `\` continuations); a command's trailing
// comment or the comment lines right after it may show its answer: a status (`# 204`) and a JSON
// object, whose top-level keys the answer must have. A `ts` block's first line names its file and,
// in backquotes after "run", the command that runs it.

export type Mark =
  | { kind: "walkthrough"; name: string }
  | { kind: "skipped"; name: string; reason: string }
  | { kind: "not-walkthrough"; reason: string };

export interface Block {
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  text: string;
  mark: Mark | null;
}

export interface ShellCommand {
  /** 1-based line in the README where the command starts. */
  line: number;
  text: string;
  /** The HTTP status the README shows for it, if any. */
  status: number | null;
  /** The top-level keys of the JSON answer the README shows for it, if any. */
  keys: string[] | null;
  /** The README says Ctrl-C ends it: it runs until interrupted. */
  interrupted: boolean;
  /** It ends with `&`: it goes on in the background. */
  background: boolean;
}

const FENCE = /^(\s*)```(\S*)\s*$/;
const MARK = /^\s*<!--\s*(walkthrough|not a walkthrough):\s*(.*?)\s*-->\s*$/;

export function readBlocks(markdown: string): Block[] {
  const lines = markdown.split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const [, indent = "", lang = ""] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !new RegExp(`^${indent}\`\`\`\\s*$`).test(lines[j]!); j++) body.push(lines[j]!.slice(indent.length));
    blocks.push({ line: i + 1, lang, text: body.join("\n"), mark: markOf(lines[i - 1] ?? "") });
    i = j;
  }
  return blocks;
}

function markOf(line: string): Mark | null {
  const match = MARK.exec(line);
  if (!match) return null;
  const [, kind, rest = ""] = match;
  if (kind === "not a walkthrough") return { kind: "not-walkthrough", reason: rest };
  const skipped = /^([\w-]+),\s*skipped:\s*(.+)$/.exec(rest);
  if (skipped) return { kind: "skipped", name: skipped[1]!, reason: skipped[2]! };
  return { kind: "walkthrough", name: rest };
}

/** Where a comment begins in a shell line (a `#` after a blank, outside quotes), or -1. */
export function commentStart(line: string): number {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = null;
      else if (c === "\\" && quote === '"') i++;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "\\") i++;
    else if (c === "#" && (i === 0 || /\s/.test(line[i - 1]!))) return i;
  }
  return -1;
}

export function shellCommands(block: Block): ShellCommand[] {
  const lines = block.text.split("\n");
  const commands: ShellCommand[] = [];
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let line = lines[i]!;
    if (line.trim() === "" || line.trim().startsWith("#")) continue;
    const parts: string[] = [];
    while (line.trimEnd().endsWith("\\") && i + 1 < lines.length) {
      parts.push(line);
      line = lines[++i]!;
    }
    const at = commentStart(line);
    const comment = at < 0 ? "" : line.slice(at + 1).trim();
    parts.push(at < 0 ? line : line.slice(0, at));
    // Comment lines right after it that show its answer (`# {...}`, continued until the braces close).
    let shown = comment.startsWith("{") || /^\d{3}\b/.test(comment) ? comment : "";
    while (i + 1 < lines.length && /^\s*#/.test(lines[i + 1]!) && (shown === "" ? /^\s*#\s*\{/.test(lines[i + 1]!) : !balanced(shown))) {
      shown += ` ${lines[++i]!.trim().replace(/^#\s?/, "")}`;
    }
    const text = parts.join("\n").trimEnd();
    const status = /^(\d{3})\b/.exec(comment)?.[1];
    commands.push({
      line: block.line + 1 + start,
      text,
      status: status ? Number(status) : null,
      keys: shownKeys(shown.trim().replace(/^\d{3}\s*/, "")),
      interrupted: /Ctrl-C/.test(comment),
      background: /&$/.test(text),
    });
  }
  return commands;
}

function balanced(text: string): boolean {
  let depth = 0;
  for (const c of text) depth += c === "{" || c === "[" ? 1 : c === "}" || c === "]" ? -1 : 0;
  return depth <= 0;
}

/** The top-level keys of a JSON object as the README sketches it (`{"id", "key": "...", "items": [...]}`), or null when none is shown. */
export function shownKeys(shown: string): string[] | null {
  if (!shown.startsWith("{")) return null;
  const keys: string[] = [];
  let depth = 0;
  for (let i = 0; i < shown.length; i++) {
    const c = shown[i]!;
    if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      if (--depth === 0) break;
    } else if (c === '"') {
      const end = shown.indexOf('"', i + 1);
      const word = shown.slice(i + 1, end);
      const value = /:\s*$/.test(shown.slice(0, i));
      if (depth === 1 && !value && /^\w+$/.test(word)) keys.push(word);
      i = end;
    }
  }
  return keys;
}

/** A `ts` block's file name and the command that runs it (null: something else starts it). */
export function scriptOf(block: Block): { file: string; run: string | null } {
  const first = block.text.split("\n")[0] ?? "";
  const file = /^\/\/\s*(\S+\.ts)\b/.exec(first)?.[1];
  if (!file) throw new Error(`README.md:${block.line}: a ts walkthrough's first line is \`// <file>.ts …\`, naming its file`);
  return { file, run: /\brun\b[^`]*`([^`]+)`/.exec(first)?.[1] ?? null };
}
