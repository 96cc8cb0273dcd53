// Operator API bodies for machines.
import { z } from "@hono/zod-openapi";
import { timestamp } from "./common.ts";

export const CreateMachineBody = z.object({ name: z.string().min(1).max(100).optional() }).strict().openapi("CreateMachine");

export const CreatedMachine = z.object({ id: z.number().int(), agent_token: z.string() }).openapi("CreatedMachine");

export const MachineList = z
  .object({
    items: z.array(
      z.object({
        id: z.number().int(),
        name: z.string(),
        online: z.boolean(),
        gpus: z.array(
          z.object({
            model: z.string().openapi({ description: 'Priced GPU model id; "" for a GPU the agent does not know (never offered).' }),
            index: z.number().int(),
            name: z.string().openapi({ description: "The GPU's name as nvidia-smi reports it." }),
          }),
        ),
        free_gpus: z.number().int(),
        last_seen_at: timestamp.nullable(),
        agent_version: z.string().openapi({ description: 'Version of the connected host agent; "" before one has connected.' }),
        driver_version: z.string().openapi({ description: 'NVIDIA driver version the agent reported; "" when unknown.' }),
        cuda_version: z.string().openapi({ description: 'Newest CUDA version the driver supports; "" when unknown (no template is placed there).' }),
      }),
    ),
  })
  .openapi("MachineList");
