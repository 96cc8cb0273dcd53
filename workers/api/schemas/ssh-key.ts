// SSH key bodies (/v1/ssh-keys).
import { z } from "@hono/zod-openapi";
import { MIN_RSA_BITS, SSH_KEY_TYPES } from "../../../core/ssh-public-key.ts";
import { timestamp } from "./common.ts";

export const SshKey = z
  .object({
    id: z.string().openapi({ description: "The key's id: `sshk_` and 16 lowercase base32 characters; remove the key by it" }),
    name: z.string().openapi({ description: "The name given, or the key line's comment when none was" }),
    type: z.enum(SSH_KEY_TYPES).openapi({ description: "The key's algorithm, as on its line" }),
    fingerprint: z.string().openapi({ description: "As OpenSSH prints it (`ssh-keygen -lf`): `SHA256:` and unpadded base64", example: "SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s" }),
    created_at: timestamp.openapi({ description: "When it was added" }),
    last_used_at: timestamp.nullable().openapi({ description: "When the key last opened an SSH connection, to the minute; null when never" }),
  })
  .openapi("SshKey");

export const SshKeyList = z.object({ items: z.array(SshKey).openapi({ description: "Oldest first" }) }).openapi("SshKeyList");

export const AddSshKeyBody = z
  .object({
    public_key: z.string().max(16_384).openapi({
      description: `One public key line as in ~/.ssh/id_ed25519.pub: ssh-ed25519, ecdsa-sha2-nistp256/384/521, or ssh-rsa of at least ${MIN_RSA_BITS} bits`,
      example: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl me@laptop",
    }),
    name: z.string().max(100).optional().openapi({ description: "A name to tell the key apart by; the line's comment when left out" }),
  })
  .strict()
  .openapi("AddSshKey");
