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
        gpus: z.array(z.object({ model: z.string(), index: z.number().int() })),
        free_gpus: z.number().int(),
        last_seen_at: timestamp.nullable(),
      }),
    ),
  })
  .openapi("MachineList");
