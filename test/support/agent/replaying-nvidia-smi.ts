// A stand-in nvidia-smi for hosts without a GPU: answers `--query-gpu=<fields> --format=csv,noheader,nounits
// -lms N` by replaying a recorded table (env FAKE_NVIDIA_SMI_TABLE, a file of host-agent/gpus/fixtures)
// every N ms until killed, as the real one loops. Run with node: `node replaying-nvidia-smi.ts <args>`.
import { projectNoUnits, recordedTable } from "./recorded-nvidia-smi.ts";

const argv = process.argv.slice(2);
const option = (name: string) => argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const values = { "query-gpu": option("query-gpu"), format: option("format"), lms: argv[argv.indexOf("-lms") + 1] };
const table = process.env.FAKE_NVIDIA_SMI_TABLE;
if (!table || values["query-gpu"] === undefined || values.format !== "csv,noheader,nounits" || !argv.includes("-lms")) {
  process.stderr.write("fake nvidia-smi: wants FAKE_NVIDIA_SMI_TABLE, --query-gpu=..., --format=csv,noheader,nounits and -lms N\n");
  process.exit(2);
}
const lines = projectNoUnits(recordedTable(table), values["query-gpu"].split(","));
const print = () => process.stdout.write(`${lines.join("\n")}\n`);
print();
setInterval(print, Number(values.lms));
