// Image pulls through the Docker Engine API, reduced to the milestones worth reporting (0/25/50/75/100).
// A custom image (a tenant's choice) is pulled on every create, so a tenant runs what its registry
// serves now, never an image that merely happens to be on the host (the agent's, another tenant's,
// a stale `:latest`); the templates' pinned images are pulled only when absent. A pull that makes
// no progress for PULL_STALL_MS fails, and the create with it, freeing the GPUs it holds. Before the
// engine is asked, the registry's addresses may be checked (registry-address.ts).
import type Docker from "dockerode";
import { checkRegistryAddresses, type RegistryLookup } from "./registry-address.ts";
import { PULL_MILESTONES } from "./runtime.ts";

export interface PullEvent {
  id?: string;
  status?: string;
  error?: string;
  progressDetail?: { current?: number; total?: number };
}

interface FollowProgressModem {
  followProgress(stream: NodeJS.ReadableStream, onFinished: (error: Error | null) => void, onProgress: (event: PullEvent) => void): void;
}

export const PULL_STALL_MS = 5 * 60_000;

export interface PullPolicy {
  /** Pull even when the image is present (a custom image). */
  always: boolean;
  /** How long a pull may go without progress before it fails. */
  stallMs: number;
  /** When set, how the registry's host is resolved before a pull, which is refused unless every address is public. */
  registryLookup?: RegistryLookup;
}

/** Pulls the image when the policy says so or it is not present locally. */
export async function ensureImage(docker: Docker, image: string, onPullProgress: (percent: number) => void, policy: PullPolicy): Promise<void> {
  if (!policy.always) {
    const present = await docker
      .getImage(image)
      .inspect()
      .then(() => true, (error: unknown) => (statusOf(error) === 404 ? false : Promise.reject(error)));
    if (present) return onPullProgress(100);
  }
  if (policy.registryLookup) await checkRegistryAddresses(image, policy.registryLookup);
  const milestones = new PullMilestones(onPullProgress);
  const stream = (await docker.pull(image)) as NodeJS.ReadableStream & { destroy(): void };
  await new Promise<void>((resolve, reject) => {
    const progress = new PullProgress();
    let stall: NodeJS.Timeout;
    const watch = () => {
      clearTimeout(stall);
      stall = setTimeout(() => {
        stream.destroy();
        reject(new Error(`the pull of ${image} made no progress for ${duration(policy.stallMs)}`));
      }, policy.stallMs);
    };
    watch();
    (docker.modem as FollowProgressModem).followProgress(
      stream,
      (error) => {
        clearTimeout(stall);
        return error ? reject(error) : resolve();
      },
      (event) => {
        if (event.error) return reject(new Error(event.error));
        if (progress.advancedBy(event)) watch();
        milestones.observe(event);
      },
    );
  });
  milestones.finish();
}

/** Whether a pull event shows the pull moving: a layer in a new status, or more of it downloaded or extracted. */
export class PullProgress {
  readonly #seen = new Map<string, { status: string; current: number }>();

  advancedBy(event: PullEvent): boolean {
    const key = event.id ?? "";
    const now = { status: event.status ?? "", current: event.progressDetail?.current ?? 0 };
    const before = this.#seen.get(key);
    this.#seen.set(key, now);
    return before === undefined || before.status !== now.status || now.current > before.current;
  }
}

function duration(ms: number): string {
  return ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000} minutes` : `${ms / 1000} s`;
}

/** Sums byte progress over the layers seen so far and reports each milestone once, in order. */
export class PullMilestones {
  readonly #report: (percent: number) => void;
  readonly #layers = new Map<string, { current: number; total: number }>();
  #next = 0;

  constructor(report: (percent: number) => void) {
    this.#report = report;
    this.#reach(0);
  }

  observe(event: PullEvent): void {
    if (!event.id) return;
    const layer = this.#layers.get(event.id) ?? { current: 0, total: 0 };
    const detail = event.progressDetail;
    if (event.status === "Downloading" && detail?.total) {
      layer.total = detail.total;
      layer.current = Math.min(detail.current ?? 0, detail.total);
    } else if (event.status === "Download complete" || event.status === "Pull complete" || event.status === "Already exists") {
      layer.current = layer.total;
    }
    this.#layers.set(event.id, layer);
    let current = 0;
    let total = 0;
    for (const l of this.#layers.values()) {
      current += l.current;
      total += l.total;
    }
    // Below 100 until the pull finishes: more layers may still appear.
    if (total > 0) this.#reach(Math.min(99, Math.floor((current / total) * 100)));
  }

  finish(): void {
    this.#reach(100);
  }

  #reach(percent: number): void {
    for (;;) {
      const milestone = PULL_MILESTONES[this.#next];
      if (milestone === undefined || milestone > percent) return;
      this.#next++;
      this.#report(milestone);
    }
  }
}

export function statusOf(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === "number" ? status : undefined;
}
