// Command-line options of `npm run bench`.

export interface BenchArgs {
  full: boolean;
  /** Skip baseline (b) even when nginx could be installed. */
  noNginx: boolean;
  /** Print the stack's own output (wrangler, agents). */
  echo: boolean;
  out: string;
  /** Also take V8 CPU profiles of workerd and the agent (starts the agents with --inspect). */
  profile: boolean;
  /** Run only these suites (names as in SUITE_NAMES); all when empty. */
  only: string[];
  /** The soak run instead of the measurements (bench/soak/). */
  soak: boolean;
  /** How long the soak runs. */
  minutes: number;
  help: boolean;
}

export const DEFAULT_SOAK_MINUTES = 30;

export const SUITE_NAMES = ["throughput", "latency", "streaming", "websocket", "ssh", "memory", "control", "ceiling", "volumes", "profile"] as const;
export type SuiteName = (typeof SUITE_NAMES)[number];

export const USAGE = `usage: npm run bench [-- --full] [--profile] [--no-nginx] [--echo] [--out FILE] [--only SUITE,…]
       npm run bench -- --soak [--minutes N] [--echo]
  --full       longer runs (256 MB transfers, gpu cp of 1 GiB each way, 512 MB upload for memory, more samples)
  --profile    add V8 CPU profiles of workerd and the agent under load (agents run with --inspect)
  --no-nginx   skip baseline (b) instead of installing/running nginx
  --echo       show the output of wrangler and the agents
  --out FILE   where the JSON goes (default bench/results/latest.json)
  --only LIST  run only these suites: ${SUITE_NAMES.join(", ")}
  --soak       a long mixed load with agent restarts, then its error, memory, ledger and leak checks
  --minutes N  how long the soak runs (default ${DEFAULT_SOAK_MINUTES})`;

export function parseArgs(argv: readonly string[], defaultOut: string): BenchArgs | { error: string } {
  const args: BenchArgs = {
    full: false, noNginx: false, echo: false, profile: false, out: defaultOut, only: [], soak: false, minutes: DEFAULT_SOAK_MINUTES, help: false,
  };
  let minutesGiven = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--full") args.full = true;
    else if (arg === "--quick") args.full = false;
    else if (arg === "--no-nginx") args.noNginx = true;
    else if (arg === "--echo") args.echo = true;
    else if (arg === "--profile") args.profile = true;
    else if (arg === "--help" || arg === "-h") args.help = true;
    else if (arg === "--out" && argv[i + 1] !== undefined) args.out = argv[++i]!;
    else if (arg === "--only" && argv[i + 1] !== undefined) {
      args.only = argv[++i]!.split(",").filter(Boolean);
      const unknown = args.only.filter((name) => !(SUITE_NAMES as readonly string[]).includes(name));
      if (unknown.length > 0) return { error: `unknown suite ${unknown.join(", ")} (suites: ${SUITE_NAMES.join(", ")})` };
    }
    else if (arg === "--soak") args.soak = true;
    else if (arg === "--minutes" && argv[i + 1] !== undefined) {
      minutesGiven = true;
      args.minutes = Number(argv[++i]);
      if (!Number.isFinite(args.minutes) || args.minutes <= 0) return { error: `--minutes must be a positive number, not ${argv[i]}` };
    }
    else return { error: `unknown option ${arg}` };
  }
  if (minutesGiven && !args.soak) return { error: "--minutes goes with --soak" };
  return args;
}
