// Doctor's firewall check, a pure function of `iptables -S`: the rules deploy/host-agent/firewall.sh
// sets for the agent's network pool (no traffic between instances, to link-local metadata, or to
// the host) must be present and hooked into INPUT and FORWARD (DOCKER-USER under Docker).
import { failureText, type CommandResult } from "../host-command.ts";
import { fail, ok, type CheckResult } from "./check.ts";

export const IPTABLES_ARGS = ["-S"] as const;
const FIX = "run firewall.sh as root (install.sh does, and the systemd unit runs it before every start)";

export function requiredRules(pool: string): { rule: string; why: string }[] {
  return [
    { rule: "-A INPUT -j GPU-RENTAL-INPUT", why: "INPUT does not jump to GPU-RENTAL-INPUT" },
    { rule: `-A GPU-RENTAL-INPUT -s ${pool} -j DROP`, why: "containers can reach the host's own services" },
    { rule: `-A GPU-RENTAL-FORWARD -s ${pool} -d ${pool} -j DROP`, why: "instances can reach each other" },
    { rule: `-A GPU-RENTAL-FORWARD -s ${pool} -d 169.254.0.0/16 -j DROP`, why: "containers can reach 169.254.169.254 (cloud metadata)" },
  ];
}

export function checkFirewall(iptables: CommandResult, pool: string): CheckResult {
  if (!iptables.ok) {
    if (iptables.missing) return fail("firewall", "iptables is not installed", "apt install iptables, then " + FIX);
    return fail("firewall", `iptables -S failed (${failureText(iptables)})`, "run doctor as root");
  }
  const lines = new Set(iptables.stdout.split(/\r?\n/).map((line) => line.trim().replace(/\s+/g, " ")));
  const missing = requiredRules(pool).filter(({ rule }) => !lines.has(rule));
  if (!lines.has("-A FORWARD -j GPU-RENTAL-FORWARD") && !lines.has("-A DOCKER-USER -j GPU-RENTAL-FORWARD")) {
    missing.push({ rule: "-A DOCKER-USER -j GPU-RENTAL-FORWARD", why: "forwarded traffic skips GPU-RENTAL-FORWARD" });
  }
  if (missing.length > 0) return fail("firewall", `rules for ${pool} missing: ${missing.map((m) => m.why).join("; ")}`, FIX);
  return ok("firewall", `instances in ${pool} cannot reach each other, and reach the host and 169.254.0.0/16 only for DNS`);
}
