// One isolate's profiler for a suite's many rounds. workerd's inspector now and then leaves a command
// unanswered, also in a session that answered before: what was asked is asked again once, on a fresh
// session.
import { openInspector, profileOn, scriptSources, type CpuProfile, type InspectorSession } from "./inspector.ts";

export interface ProfilingSession {
  /** A profile of the isolate while `work` runs. */
  profile(work: () => Promise<unknown>): Promise<CpuProfile>;
  /** The source of each script the profiles' frames are in (bundleModules reads their modules). */
  sourcesOf(profiles: readonly CpuProfile[]): Promise<Map<string, string>>;
  close(): void;
}

export async function openProfilingSession(url: string): Promise<ProfilingSession> {
  let session = await openInspector(url);
  const onSession = async <T>(ask: (current: InspectorSession) => Promise<T>): Promise<T> => {
    try {
      return await ask(session);
    } catch {
      session.close();
      session = await openInspector(url);
      return ask(session);
    }
  };
  return {
    profile: async (work) => (await onSession((current) => profileOn(current, work))).profile,
    sourcesOf: (profiles) => {
      const ids = new Set(profiles.flatMap((profile) => profile.nodes.map((node) => node.callFrame.scriptId)));
      return onSession((current) => scriptSources(current, [...ids].filter((id): id is string => id !== undefined && id !== "0")));
    },
    close: () => session.close(),
  };
}
