// What a rule does, written from `nft -j`'s statements as one line in nft's own words (`ip daddr
// 169.254.0.0/16 counter reject with icmpx admin-prohibited`): its matches, what it records and its
// verdict, so that two rules compare equal exactly when they match the same packets and do the same
// with them. Counter values are left out (they move with traffic); an operator other than `==` is
// written out (nft's text leaves out `in` too, which would hide `==` put in its place); a statement or
// value of a kind this does not know is written as its JSON, so it still differs from any other.
type Json = unknown;

/** The rule's statements (nft -j's `expr`) as one line; "" for a rule with none. */
export function ruleText(statements: readonly Record<string, Json>[]): string {
  return statements.map(statementText).join(" ");
}

function statementText(statement: Record<string, Json>): string {
  const [kind = "", body] = Object.entries(statement)[0] ?? [];
  switch (kind) {
    case "match": {
      const { op, left, right } = body as { op: string; left: Json; right: Json };
      return [keyText(left), ...(op === "==" ? [] : [op]), valueText(right)].join(" ");
    }
    case "counter":
      return "counter";
    case "reject": {
      const { type, expr } = (body ?? {}) as { type?: string; expr?: string };
      return ["reject", ...(type === undefined ? [] : ["with", type]), ...(expr === undefined ? [] : [expr])].join(" ");
    }
    case "goto":
    case "jump":
      return `${kind} ${(body as { target: string }).target}`;
    case "accept":
    case "drop":
    case "return":
    case "continue":
      return body === null ? kind : `${kind} ${JSON.stringify(body)}`;
    default:
      return JSON.stringify(statement);
  }
}

function keyText(key: Json): string {
  const { payload, meta, ct } = key as { payload?: { protocol: string; field: string }; meta?: { key: string }; ct?: { key: string } };
  if (payload) return `${payload.protocol} ${payload.field}`;
  if (meta) return `meta ${meta.key}`;
  if (ct) return `ct ${ct.key}`;
  return JSON.stringify(key);
}

function valueText(value: Json): string {
  if (typeof value === "string" || typeof value === "number") return String(value);
  // A list of flags (ct state established,related).
  if (Array.isArray(value)) return value.map(valueText).join(",");
  const { set, prefix, range } = (value ?? {}) as { set?: Json[]; prefix?: { addr: string; len: number }; range?: [Json, Json] };
  if (set) return `{ ${set.map(valueText).join(", ")} }`;
  if (prefix) return `${prefix.addr}/${prefix.len}`;
  if (range) return `${valueText(range[0])}-${valueText(range[1])}`;
  return JSON.stringify(value);
}
