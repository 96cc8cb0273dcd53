// Operator API bodies for machines.
import { z } from "@hono/zod-openapi";
import { timestamp } from "./common.ts";

export const CreateMachineBody = z
  .object({ name: z.string().min(1).max(100).optional().openapi({ description: "A name to tell the machine apart by; `machine` when left out" }) })
  .strict()
  .openapi("CreateMachine");

const machineId = z.number().int().openapi({ description: "The machine's id, a positive integer given in order of registration" });

export const CreatedMachine = z
  .object({
    id: machineId,
    agent_token: z.string().openapi({ description: "The token its host agent connects with (`gma_<id>_...`): shown this once, only its hash is kept" }),
  })
  .openapi("CreatedMachine");

export const MachineIdParam = z.object({
  id: z.coerce.number("must be a machine id").int("must be a machine id").positive("must be a machine id")
    .openapi({ param: { name: "id", in: "path", description: "The machine's id, as POST /admin/v1/machines gave it" }, type: "integer", minimum: 1 }),
});

export const ReplacedAgentToken = z
  .object({ token: z.string().openapi({ description: "The machine's new agent token (`gma_<id>_...`): shown this once; the old one is refused from now on" }) })
  .openapi("ReplacedAgentToken");

export const MachineList = z
  .object({
    items: z.array(
      z.object({
        id: machineId,
        name: z.string().openapi({ description: "The name given at registration" }),
        online: z.boolean().openapi({ description: "Whether its host agent is connected now" }),
        degraded: z.string().openapi({
          description: 'Why its host takes no new instances now, as its agent reports it (e.g. its tenant firewall is missing); "" when it does. Launches are not placed on a degraded machine, and its free GPUs are not offered.',
        }),
        gpus: z.array(
          z.object({
            model: z.string().openapi({ description: 'Priced GPU model id; "" for a GPU the agent does not know (never offered).' }),
            index: z.number().int().openapi({ description: "The GPU's index on the host, as nvidia-smi numbers it" }),
            name: z.string().openapi({ description: "The GPU's name as nvidia-smi reports it." }),
          }),
        ).openapi({ description: "Its GPUs, as its agent last reported them" }),
        free_gpus: z.number().int().openapi({ description: "How many of its GPUs no instance holds" }),
        disk: z
          .object({
            total_bytes: z.number().int().openapi({ description: "Size of the file system its instances' disks live on (the engine's data root), as its agent last said" }),
            free_bytes: z.number().int().openapi({ description: "Free bytes on it when its agent last connected" }),
            promised_gb: z.number().int().openapi({ description: "The disk_gb of its instances not yet destroyed, together (GB of 2^30 bytes)" }),
          })
          .nullable()
          .openapi({
            description: "Its disk: a launch is placed there only while the disk_gb promised, its own included, fits total_bytes. " +
              "Null while its agent has not said (an agent from before disk reports, or one that cannot see the engine's data root): no disk limit is assumed then.",
          }),
        last_seen_at: timestamp.nullable().openapi({ description: "The agent's last sign of life the machine reported (when it connected, or when it went offline); null if none ever connected" }),
        agent_version: z.string().openapi({ description: 'Version of the connected host agent; "" before one has connected.' }),
        driver_version: z.string().openapi({ description: 'NVIDIA driver version the agent reported; "" when unknown.' }),
        cuda_version: z.string().openapi({ description: 'Newest CUDA version the driver supports; "" when unknown (no template is placed there).' }),
      }),
    ).openapi({ description: "Every registered machine" }),
  })
  .openapi("MachineList");
