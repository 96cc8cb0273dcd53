// A command about one instance (`gpu <name> <id> ...`): the <id> argument, described once for all of them.
import { Command } from "@commander-js/extra-typings";

export function instanceCommand(name: string, description: string) {
  return new Command(name).description(description).argument("<id>", "instance id (i-...)");
}
