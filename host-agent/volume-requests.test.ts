// The agent's volume requests, answered by request id: timeouts, a dropped or absent connection, answers
// out of order, late or of the wrong kind; and the URLs the platform signs for them, used against R2's
// S3 API (miniflare's, as `npm run dev` serves it): good while fresh, refused once expired.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { clock } from "../core/clock.ts";
import { signVolumeUrls, VOLUME_URL_SECONDS } from "../durable-objects/volume-urls.ts";
import { chunkName, volumeObjectKey, type AgentMessage, type ServerMessage } from "../protocol/index.ts";
import { ACCOUNT, startVolumePlatform, type VolumePlatform } from "../test/support/agent/volume-platform.ts";
import { VolumeRequests } from "./volume-requests.ts";

const INSTANCE = "i-aaaaaaaaaaaaaaaa";
const VOLUME = "vol_aaaaaaaaaaaaaaaa";
const NAME = chunkName("b".repeat(64));

function tracker(connected = true, timeouts = { signMs: 60_000, commitMs: 60_000 }) {
  const sent: AgentMessage[] = [];
  const requests = new VolumeRequests((message) => {
    if (connected) sent.push(message);
    return connected;
  }, timeouts);
  const last = () => sent.at(-1) as Extract<AgentMessage, { request_id: number }>;
  return { requests, sent, last };
}

const signed = (requestId: number, urls: string[], error = ""): Extract<ServerMessage, { type: "volume_signed" }> => ({ type: "volume_signed", request_id: requestId, urls, expires_s: 600, error });
const committed = (requestId: number, version: number | null, error = ""): Extract<ServerMessage, { type: "volume_committed" }> => ({ type: "volume_committed", request_id: requestId, version, error });

describe("volume requests", () => {
  it("answers each request by its id, in whatever order the answers come", async () => {
    const { requests, sent } = tracker();
    const signer = requests.signerFor(INSTANCE);
    const first = signer.sign(VOLUME, "GET", [NAME]);
    const second = signer.commit(VOLUME, 3, "manifests/abcdefghijklmnop.json", 42);
    expect(sent).toEqual([
      { type: "volume_sign", request_id: expect.any(Number), instance_id: INSTANCE, volume_id: VOLUME, method: "GET", names: [NAME] },
      { type: "volume_commit", request_id: expect.any(Number), instance_id: INSTANCE, volume_id: VOLUME, base_version: 3, manifest: "manifests/abcdefghijklmnop.json", bytes_sent: 42 },
    ]);
    const [signId, commitId] = sent.map((m) => (m as { request_id: number }).request_id);
    expect(signId).not.toBe(commitId);
    requests.receive(committed(commitId!, 4));
    requests.receive(signed(signId!, ["https://r2.example/x"]));
    await expect(first).resolves.toEqual(["https://r2.example/x"]);
    await expect(second).resolves.toEqual({ version: 4, error: "" });
    expect(requests.inFlight()).toBe(0);
  });

  it("a refusal is an error naming the platform's reason; a commit refused is a result", async () => {
    const { requests, last } = tracker();
    const signing = requests.sign({ instance_id: INSTANCE, volume_id: VOLUME, method: "PUT", names: [NAME] });
    requests.receive(signed(last().request_id, [], "volume vol_aaaaaaaaaaaaaaaa is mounted read-only"));
    await expect(signing).rejects.toThrow("the platform refused to sign: volume vol_aaaaaaaaaaaaaaaa is mounted read-only");
    const committing = requests.commit({ instance_id: INSTANCE, volume_id: VOLUME, base_version: 0, manifest: "manifests/abcdefghijklmnop.json", bytes_sent: 0 });
    requests.receive(committed(last().request_id, null, "the volume has moved past version 0"));
    await expect(committing).resolves.toEqual({ version: null, error: "the volume has moved past version 0" });
  });

  it("refuses a signing with a URL missing, and ignores an answer of the wrong kind or for no request", async () => {
    const { requests, last } = tracker();
    const signing = requests.sign({ instance_id: INSTANCE, volume_id: VOLUME, method: "GET", names: [NAME, NAME] });
    const id = last().request_id;
    requests.receive(committed(id, 1));
    requests.receive(signed(id + 1000, ["x", "y"]));
    expect(requests.inFlight()).toBe(1);
    requests.receive(signed(id, ["only one"]));
    await expect(signing).rejects.toThrow("the platform signed 1 URLs for 2 names");
  });

  it("fails a request at once when there is no connection to send it on", async () => {
    const { requests } = tracker(false);
    await expect(requests.sign({ instance_id: INSTANCE, volume_id: VOLUME, method: "GET", names: [NAME] })).rejects.toThrow("no connection to the platform now");
    expect(requests.inFlight()).toBe(0);
  });

  it("fails what is in flight when the connection drops", async () => {
    const { requests, last } = tracker();
    const signing = requests.sign({ instance_id: INSTANCE, volume_id: VOLUME, method: "GET", names: [NAME] });
    const committing = requests.commit({ instance_id: INSTANCE, volume_id: VOLUME, base_version: 0, manifest: "manifests/abcdefghijklmnop.json", bytes_sent: 0 });
    const commitId = last().request_id;
    requests.disconnected();
    await expect(signing).rejects.toThrow("the connection to the platform dropped before it answered");
    await expect(committing).rejects.toThrow("dropped");
    // An answer that comes after all changes nothing.
    requests.receive(committed(commitId, 1));
    expect(requests.inFlight()).toBe(0);
  });

  it("fails a request not answered in time, and drops its late answer", async () => {
    vi.useFakeTimers();
    try {
      const { requests, last } = tracker(true, { signMs: 1_000, commitMs: 5_000 });
      const signing = requests.sign({ instance_id: INSTANCE, volume_id: VOLUME, method: "GET", names: [NAME] });
      const signId = last().request_id;
      const committing = requests.commit({ instance_id: INSTANCE, volume_id: VOLUME, base_version: 0, manifest: "manifests/abcdefghijklmnop.json", bytes_sent: 0 });
      const outcomes = Promise.allSettled([signing, committing]);
      vi.advanceTimersByTime(1_000);
      expect(requests.inFlight()).toBe(1);
      requests.receive(signed(signId, ["late"]));
      vi.advanceTimersByTime(4_000);
      const [signOutcome, commitOutcome] = await outcomes;
      expect(signOutcome).toMatchObject({ status: "rejected", reason: new Error("the platform did not answer within 1 s") });
      expect(commitOutcome).toMatchObject({ status: "rejected", reason: new Error("the platform did not answer within 5 s") });
      expect(requests.inFlight()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("a URL the platform signs, against R2's S3 API", () => {
  let platform: VolumePlatform;
  beforeAll(async () => {
    platform = await startVolumePlatform();
    await platform.bucket.put(volumeObjectKey(ACCOUNT, VOLUME, NAME), "chunk bytes");
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await platform?.close();
  });

  it("reads the object while fresh, and is refused once VOLUME_URL_SECONDS have passed", async () => {
    const [fresh] = await signVolumeUrls(platform.env, ACCOUNT, VOLUME, "GET", [NAME]);
    const answer = await fetch(fresh!);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe("chunk bytes");
    // Signed as long ago as a URL lives, and a minute more: what an agent holding it that long would send.
    const now = Date.now();
    vi.spyOn(clock, "now").mockReturnValue(now - (VOLUME_URL_SECONDS + 60) * 1000);
    const [expired] = await signVolumeUrls(platform.env, ACCOUNT, VOLUME, "GET", [NAME]);
    vi.restoreAllMocks();
    const refused = await fetch(expired!);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toMatch(/expired/i);
    // A PUT expired alike stores nothing.
    vi.spyOn(clock, "now").mockReturnValue(now - (VOLUME_URL_SECONDS + 60) * 1000);
    const [expiredPut] = await signVolumeUrls(platform.env, ACCOUNT, VOLUME, "PUT", [NAME]);
    vi.restoreAllMocks();
    expect((await fetch(expiredPut!, { method: "PUT", body: "overwritten" })).status).toBe(403);
    expect(await (await platform.bucket.get(volumeObjectKey(ACCOUNT, VOLUME, NAME)))!.text()).toBe("chunk bytes");
  });
});
