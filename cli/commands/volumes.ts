// `gpu volumes ls|create|show|rm|grow|save|snapshot|snapshots`: the account's volumes, directories
// kept apart from any instance and mounted at launch (`gpu launch --volume`), their files copied with
// `gpu cp … vol:<name>:<path>`. A volume is named by its name or its id wherever one is taken.
import { Command } from "@commander-js/extra-typings";
import { ok, type Volume } from "../../client/index.ts";
import { confirmOrRefuse } from "../confirm.ts";
import type { Factory } from "../factory.ts";
import { byteSize, dollars, printDone, printJson, printTable } from "../format.ts";
import { integer, JSON_HELP, QUIET_HELP } from "../options.ts";
import { readCommand } from "./read-command.ts";

export function volumesCommand(f: Factory) {
  return new Command("volumes")
    .description("Manage your volumes, storage kept apart from instances: ls, create, show, rm, grow, save, snapshot, snapshots")
    .addCommand(listVolumes(f))
    .addCommand(createVolume(f))
    .addCommand(showVolume(f))
    .addCommand(removeVolume(f))
    .addCommand(growVolume(f))
    .addCommand(saveVolume(f))
    .addCommand(snapshotVolume(f))
    .addCommand(listSnapshots(f));
}

const VOLUME_ARGUMENT = ["<volume>", "the volume's name or id (vol_…)"] as const;
const path = (id: string) => ({ params: { path: { id } } });

/** "i-…:/workspace, i-…:/data (ro)", or "-" when it is mounted nowhere. */
function attachmentsText(volume: Volume): string {
  return volume.attachments.map((a) => `${a.instance_id}:${a.path}${a.read_only ? " (ro)" : ""}`).join(", ") || "-";
}

function listVolumes(f: Factory) {
  return readCommand(
    f, "ls", "List your volumes, oldest first",
    (api) => ok(api.GET("/v1/volumes")),
    (list) => {
      if (list.items.length === 0 && f.io.isStdoutTty) return f.io.out("No volumes. Make one with `gpu volumes create <name> --size-gb <n>`.");
      printTable(
        f.io,
        ["ID", "NAME", "SIZE", "USED", "STORED", "VERSION", "ATTACHED", "PER MONTH", "SAVED"],
        list.items.map((v) => [
          v.id, v.name, `${v.size_gb} GB`, byteSize(v.used_bytes), byteSize(v.stored_bytes), String(v.version), attachmentsText(v),
          dollars(v.price_month_micros), v.saved_at ?? "never",
        ]),
      );
    },
  );
}

function createVolume(f: Factory) {
  return new Command("create")
    .description("Create an empty volume (or one holding a snapshot's content); no instance is needed to fill it: `gpu cp ./data vol:<name>:/`")
    .argument("<name>", "1 to 63 of a-z, 0-9 and -, starting with a letter; unique in your account")
    .option("--size-gb <n>", "the most it holds, in GB (10^9 bytes), 1 to 10000; it can grow later", integer)
    .option("--from-snapshot <snapshot-id>", "start from this snapshot's content (snap_…, from `gpu volumes snapshots`)")
    .option("--json", JSON_HELP)
    .action(async (name, options) => {
      const body = {
        name,
        ...(options.sizeGb !== undefined && { size_gb: options.sizeGb }),
        ...(options.fromSnapshot !== undefined && { from_snapshot: options.fromSnapshot }),
      };
      const volume = await ok((await f.client()).POST("/v1/volumes", { body }));
      if (options.json) return printJson(f.io, volume);
      // A script gets the id to use next; a person a sentence.
      if (!f.io.isStdoutTty) return f.io.out(volume.id);
      f.io.out(`✓ Created ${volume.name} (${volume.id}), ${volume.size_gb} GB`);
    });
}

function showVolume(f: Factory) {
  return new Command("show")
    .description("Show a volume: its size, content, version, where it is mounted and what it costs")
    .argument(...VOLUME_ARGUMENT)
    .option("--json", JSON_HELP)
    .action(async (id, options) => {
      const volume = await ok((await f.client()).GET("/v1/volumes/{id}", path(id)));
      if (options.json) return printJson(f.io, volume);
      const rows: [string, string][] = [
        ["id", volume.id],
        ["name", volume.name],
        ["size", `${volume.size_gb} GB`],
        ["used", `${byteSize(volume.used_bytes)} (version ${volume.version})`],
        ["stored", `${byteSize(volume.stored_bytes)} with snapshots, ${dollars(volume.price_month_micros)}/month`],
        ["saved", volume.saved_at ?? "never"],
        ["created", volume.created_at],
        ...(volume.delete_at === null ? [] : [["deleted at", `${volume.delete_at} (the balance is used up: add funds to keep it)`] as [string, string]]),
        ...volume.attachments.map((a): [string, string] => [`mounted in ${a.instance_id}`, `${a.path}${a.read_only ? " (read-only)" : ""}`]),
      ];
      if (!f.io.isStdoutTty) return printTable(f.io, [], rows);
      const width = Math.max(...rows.map(([name]) => name.length));
      for (const [name, value] of rows) f.io.out(`${`${name}:`.padEnd(width + 2)}${value}`);
    });
}

function removeVolume(f: Factory) {
  return new Command("rm")
    .description("Delete a volume, its snapshots and every stored byte of it (refused while an instance has it mounted)")
    .argument(...VOLUME_ARGUMENT)
    .option("-y, --yes", "do not ask for confirmation (needed when not on a terminal)")
    .option("--json", `${JSON_HELP} (the volumes left)`)
    .option("-q, --quiet", QUIET_HELP)
    .action(async (id, options) => {
      if (!options.yes) await confirmOrRefuse(f, `Delete volume ${id} and its snapshots?`, `deleting ${id} deletes its data: pass --yes to confirm`, "not deleted");
      const api = await f.client();
      await ok(api.DELETE("/v1/volumes/{id}", path(id)));
      if (options.json) return printJson(f.io, await ok(api.GET("/v1/volumes")));
      printDone(f.io, `Deleted volume ${id}`, options);
    });
}

function growVolume(f: Factory) {
  return new Command("grow")
    .description("Make a volume bigger (it never shrinks)")
    .argument(...VOLUME_ARGUMENT)
    .requiredOption("--size-gb <n>", "its new size in GB, at least the size now", integer)
    .option("--json", JSON_HELP)
    .option("-q, --quiet", QUIET_HELP)
    .action(async (id, options) => {
      const volume = await ok((await f.client()).PATCH("/v1/volumes/{id}", { ...path(id), body: { size_gb: options.sizeGb } }));
      if (options.json) return printJson(f.io, volume);
      printDone(f.io, `${volume.name} is ${volume.size_gb} GB`, options);
    });
}

function saveVolume(f: Factory) {
  return new Command("save")
    .description("Save a volume now from the running instance that has it mounted read-write (only what changed is sent)")
    .argument(...VOLUME_ARGUMENT)
    .option("--json", `${JSON_HELP} (the volume as read after asking)`)
    .option("-q, --quiet", QUIET_HELP)
    .action(async (id, options) => {
      const api = await f.client();
      await ok(api.POST("/v1/volumes/{id}/save", path(id)));
      if (options.json) return printJson(f.io, await ok(api.GET("/v1/volumes/{id}", path(id))));
      printDone(f.io, `Saving ${id}: its version grows once the host has stored what changed (see \`gpu volumes show ${id}\`)`, options);
    });
}

function snapshotVolume(f: Factory) {
  return new Command("snapshot")
    .description("Keep a volume's latest version as a snapshot: its data stays stored whatever is saved later")
    .argument(...VOLUME_ARGUMENT)
    .option("--name <name>", "a name for the snapshot (default: v and the version)")
    .option("--json", JSON_HELP)
    .action(async (id, options) => {
      const body = options.name === undefined ? {} : { name: options.name };
      const snapshot = await ok((await f.client()).POST("/v1/volumes/{id}/snapshots", { ...path(id), body }));
      if (options.json) return printJson(f.io, snapshot);
      if (!f.io.isStdoutTty) return f.io.out(snapshot.id);
      f.io.out(`✓ Snapshot ${snapshot.name} (${snapshot.id}) of ${id} at version ${snapshot.version}`);
    });
}

function listSnapshots(f: Factory) {
  return new Command("snapshots")
    .description("List a volume's snapshots, newest first")
    .argument(...VOLUME_ARGUMENT)
    .option("--json", JSON_HELP)
    .action(async (id, options) => {
      const list = await ok((await f.client()).GET("/v1/volumes/{id}/snapshots", path(id)));
      if (options.json) return printJson(f.io, list);
      if (list.items.length === 0 && f.io.isStdoutTty) return f.io.out(`No snapshots of ${id}. Take one with \`gpu volumes snapshot ${id}\`.`);
      printTable(f.io, ["ID", "NAME", "VERSION", "STORED", "CREATED"], list.items.map((s) => [s.id, s.name, String(s.version), byteSize(s.stored_bytes), s.created_at]));
    });
}
