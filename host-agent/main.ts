// Entry of the production host agent (`gpu-rental-agent` once built by `npm run build:agent`;
// `node host-agent/main.ts` from the repo): nvidia-smi's GPUs and the docker runtime. The dev agent
// (dev/dev-main.ts, what `npm run dev` and the tests start) is another entry, kept out of this one's bundle.
// First: ws reads its mask functions as it loads (ws-mask.ts).
import "./ws-mask.ts";
import { NVIDIA_DOCKER_HOST, runCommandLine } from "./agent-command.ts";
import { parseCommandLine, USAGE } from "./config.ts";

await runCommandLine(parseCommandLine(process.argv.slice(2), process.env), { ...NVIDIA_DOCKER_HOST, usage: USAGE });
