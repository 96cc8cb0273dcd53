// Image pulls through the Docker Engine API, reduced to the milestones worth reporting (0/25/50/75/100).
import type Docker from "dockerode";
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

/** Pulls the image unless it is present locally. */
export async function ensureImage(docker: Docker, image: string, onPullProgress: (percent: number) => void): Promise<void> {
  const present = await docker
    .getImage(image)
    .inspect()
    .then(() => true, (error: unknown) => (statusOf(error) === 404 ? false : Promise.reject(error)));
  if (present) return onPullProgress(100);
  const milestones = new PullMilestones(onPullProgress);
  const stream = await docker.pull(image);
  await new Promise<void>((resolve, reject) => {
    (docker.modem as FollowProgressModem).followProgress(
      stream,
      (error) => (error ? reject(error) : resolve()),
      (event) => (event.error ? reject(new Error(event.error)) : milestones.observe(event)),
    );
  });
  milestones.finish();
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
