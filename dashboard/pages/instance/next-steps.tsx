// What to do next with this instance, by where it stands: being created (what the host is doing),
// running while its server still loads, or ready (how to connect: Open for a web app, the proxy
// URL, and copyable curl and openai snippets with this instance's address).
import { useQuery } from "@tanstack/react-query";
import type { Instance } from "../../api/instances.ts";
import { readLogTail } from "../../api/logs.ts";
import { useCatalog } from "../../api/catalog.ts";
import { useEvents } from "../../api/instances.ts";
import { CopyButton } from "../../components/copy-button.tsx";
import { proxyPath } from "./open-port.ts";

export function NextSteps({ instance }: { instance: Instance }) {
  const events = useEvents(instance.id);
  const catalog = useCatalog();
  if (instance.status === "creating" || instance.status === "starting") {
    const latest = events.data?.[0]?.message;
    return (
      <p className="note" data-testid="next-steps">
        The host is getting it ready{latest ? `: ${latest}` : ""}. Billing starts once it runs; this page follows it by itself.
      </p>
    );
  }
  if (instance.status !== "running") return null;
  const ready = instance.ports.filter((port) => port.ready);
  if (ready.length === 0) return <StillLoading ports={instance.ports.map((port) => `${port.port} (${port.api})`).join(", ")} id={instance.id} />;
  const port = ready[0]!;
  const base = window.location.origin + proxyPath(instance.id, port.port);
  const curl = `curl -H "Authorization: Bearer $GPU_API_KEY" ${base}${port.api === "openai" ? "v1/models" : ""}`;
  const hf = catalog.data?.models.find((model) => model.id === instance.model)?.hf ?? instance.model;
  const openai = [
    'import OpenAI from "openai";',
    `const client = new OpenAI({ baseURL: "${base}v1", apiKey: process.env.GPU_API_KEY });`,
    `const reply = await client.chat.completions.create({ model: "${hf}", messages: [{ role: "user", content: "Hello" }] });`,
  ].join("\n");
  return (
    <section aria-labelledby="connect" data-testid="next-steps">
      <h2 id="connect">Connect</h2>
      <p>
        Ready on port {port.port} ({port.api}).{port.api !== "openai" && " Its web app opens with Open under Ports."} Through the proxy, with one of your API
        keys as <code>GPU_API_KEY</code>:
      </p>
      <pre data-testid="snippet-curl">{curl}</pre>
      <CopyButton text={curl} label="Copy curl" />
      {port.api === "openai" && (
        <>
          <pre data-testid="snippet-openai">{openai}</pre>
          <CopyButton text={openai} label="Copy openai snippet" />
        </>
      )}
    </section>
  );
}

/** Running, its server still loading: which ports, and the container's last log line, read again every few seconds. */
function StillLoading({ ports, id }: { ports: string; id: string }) {
  const last = useQuery({
    queryKey: ["instances", id, "last-log-line"],
    queryFn: ({ signal }) => readLogTail(id, 1, signal).then((lines) => lines.at(-1) ?? ""),
    refetchInterval: 3_000,
  });
  return (
    <p className="note" data-testid="next-steps">
      Running{ports ? `; ${ports} still loading: the server inside is starting (a model downloads and loads first)` : ""}.
      {last.data && (
        <>
          {" "}Last log line: <code data-testid="last-log-line">{last.data}</code>
        </>
      )}
    </p>
  );
}
