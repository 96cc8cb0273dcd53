// Pull progress events reduced to milestones: each reported once, in order, 100 only at the end.
import { describe, expect, it } from "vitest";
import { PullMilestones, PullProgress } from "./docker-pull.ts";

describe("pull milestones", () => {
  it("reports 0 at once, then each milestone the summed layer progress crosses, and 100 when done", () => {
    const reported: number[] = [];
    const milestones = new PullMilestones((p) => reported.push(p));
    expect(reported).toEqual([0]);
    milestones.observe({ id: "a", status: "Pulling fs layer" });
    milestones.observe({ id: "a", status: "Downloading", progressDetail: { current: 30, total: 100 } });
    milestones.observe({ id: "b", status: "Downloading", progressDetail: { current: 0, total: 100 } });
    expect(reported).toEqual([0, 25]);
    milestones.observe({ id: "a", status: "Download complete" });
    milestones.observe({ id: "b", status: "Downloading", progressDetail: { current: 60, total: 100 } });
    expect(reported).toEqual([0, 25, 50, 75]);
    milestones.observe({ id: "b", status: "Pull complete" });
    expect(reported).toEqual([0, 25, 50, 75]);
    milestones.finish();
    expect(reported).toEqual([0, 25, 50, 75, 100]);
  });

  it("never goes back when new layers appear", () => {
    const reported: number[] = [];
    const milestones = new PullMilestones((p) => reported.push(p));
    milestones.observe({ id: "a", status: "Downloading", progressDetail: { current: 60, total: 100 } });
    milestones.observe({ id: "b", status: "Downloading", progressDetail: { current: 0, total: 900 } });
    milestones.observe({ id: "b", status: "Downloading", progressDetail: { current: 200, total: 900 } });
    expect(reported).toEqual([0, 25, 50]);
  });

  it("counts as progress a layer in a new status, or more of it, and not the same event again", () => {
    const progress = new PullProgress();
    const seen = [
      { status: "Pulling from tenant/app", id: "latest" },
      { id: "a", status: "Pulling fs layer" },
      { id: "a", status: "Downloading", progressDetail: { current: 10, total: 100 } },
      { id: "a", status: "Downloading", progressDetail: { current: 10, total: 100 } },
      { id: "a", status: "Downloading", progressDetail: { current: 40, total: 100 } },
      { id: "a", status: "Download complete" },
      { id: "a", status: "Download complete" },
    ].map((event) => progress.advancedBy(event));
    expect(seen).toEqual([true, true, true, false, true, true, false]);
  });
});
