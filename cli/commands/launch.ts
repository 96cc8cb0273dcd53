// `gpu launch`: launches an instance from flags named after the API's fields; --wait follows it
// until it runs (exit 0) or fails (exit 1), --ready until its HTTP ports answer too.
import { Command, InvalidArgumentError } from "@commander-js/extra-typings";
import { ok, type LaunchRequest } from "../../client/index.ts";
import { CliError } from "../errors.ts";
import type { Factory } from "../factory.ts";
import { printJson } from "../format.ts";
import { instanceSummary, statusText } from "../instance-text.ts";
import { integer, JSON_HELP } from "../options.ts";
import { addVolumeMount } from "../volume-mount.ts";
import { waitUntilSettled } from "../wait-running.ts";

export function launchCommand(f: Factory) {
  return new Command("launch")
    .description("Launch an instance: GPUs of one model on one machine, running a template or a public image")
    .requiredOption("--gpu-model <model>", "GPU model id (see `gpu gpus`)")
    .option("--gpu-count <n>", "GPUs, 1 to 8, all on one machine", integer, 1)
    .requiredOption("--template <id>", "vllm, sglang, embeddings, comfyui, pytorch, ollama or custom (see `gpu catalog`)")
    .option("--model <id>", "model id from `gpu catalog` (vllm, sglang and embeddings need one)")
    .option("--image <ref>", "public container image, only with --template custom")
    .option("--disk-gb <n>", "disk size in GB, 10 to 2000 (default: the template's)", integer)
    .option("--label <text>", "a name for the instance, at most 64 characters")
    .option("--env <NAME=VALUE>", "environment variable for the container (repeatable)", addEnv)
    .option("--volume <name[:/path][:ro]>", "mount a volume (its name or id), at /workspace unless a path is given, read-only with :ro (repeatable, at most 4)", addVolumeMount)
    .option("--idle-stop <minutes>", "stop it once its GPUs stayed under 5 % with no traffic for this long, 5 to 1440 (default: never)", integer)
    .option("--wait", "wait until the instance is running; exit non-zero if it fails")
    .option("--ready", "with --wait (implied): also wait until every HTTP port answers (the model is loaded)")
    .option("--json", `${JSON_HELP} (with --wait, the instance as last read)`)
    .addHelpText("after", "\nExamples:\n  gpu launch --gpu-model rtx4090 --template vllm --model qwen2.5-0.5b-instruct --label demo --wait --ready\n  gpu launch --gpu-model rtx4090 --template pytorch --volume work --volume datasets:/data:ro")
    .action(async (options) => {
      const body: LaunchRequest = {
        gpu_model: options.gpuModel,
        gpu_count: options.gpuCount,
        template: options.template,
        ...(options.model !== undefined && { model: options.model }),
        ...(options.image !== undefined && { image: options.image }),
        ...(options.diskGb !== undefined && { disk_gb: options.diskGb }),
        ...(options.label !== undefined && { label: options.label }),
        ...(options.env !== undefined && { env: options.env }),
        ...(options.idleStop !== undefined && { idle_stop_minutes: options.idleStop }),
        ...(options.volume !== undefined && { volumes: options.volume }),
      };
      const api = await f.client();
      const launched = await ok(api.POST("/v1/instances", { body }));
      if (f.io.isStdoutTty && !options.json) f.io.out(`Launched ${launched.id}: ${instanceSummary(launched)}`);
      const wait = options.wait || options.ready;
      const instance = wait ? await waitUntilSettled(api, f.io, launched, { ready: options.ready }) : launched;
      if (options.json) printJson(f.io, instance);
      else if (!f.io.isStdoutTty) f.io.out(instance.id);
      if (!wait) return;
      if (instance.status !== "running") throw new CliError(`instance ${instance.id} is ${statusText(instance)}`);
      if (f.io.isStdoutTty && !options.json) {
        f.io.out(`✓ ${instance.id} is running${options.ready ? ", its ports ready" : ""}`);
        for (const port of instance.ports) f.io.out(`  port ${port.port} (${port.api}): gpu forward ${instance.id} ${port.port}`);
      }
    });
}

function addEnv(pair: string, env: Record<string, string> = {}): Record<string, string> {
  const at = pair.indexOf("=");
  if (at <= 0) throw new InvalidArgumentError("must be NAME=VALUE");
  return { ...env, [pair.slice(0, at)]: pair.slice(at + 1) };
}
