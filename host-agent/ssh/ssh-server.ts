// The agent's SSH server for one connection, in-process (ssh2): the machine's host key, user
// authentication by `publickey` against the keys the connection was opened with (the account's, read
// by the control plane at that moment; the user name is only shown), and each channel mapped into the
// instance: `shell` and `exec` as a process in its container (a PTY when asked, the window followed,
// the exit status returned), the `sftp` subsystem as the image's own sftp-server (so sftp, scp and
// rsync's clients work), `direct-tcpip` (`ssh -L`) to one of its own ports, `env` for TERM, LANG
// and LC_* only. Nothing else: no agent or X11 forwarding, no remote forwarding. Every value a client
// sends is checked before use (client-values.ts), and whatever goes wrong in one channel ends that
// channel: one tenant's client never takes the agent down, and every session on the host with it.
import { connect } from "node:net";
import type { Duplex } from "node:stream";
import ssh2, { type AuthContext, type Connection, type ServerChannel, type Session } from "ssh2";
import { SSH_CIPHERS } from "../../standards/ssh-ciphers.ts";
import type { Logger } from "../log.ts";
import type { ContainerRuntime, ExecRequest } from "../runtime/runtime.ts";
import { capWindow, ChannelSlots } from "./channel-limits.ts";
import { changedTerminal, envAllowed, isEnvValue, isPort, requestedTerminal } from "./client-values.ts";
import type { SshHostKey } from "./host-key.ts";
import { SessionEnder } from "./session-ender.ts";

export type SshRuntime = Pick<ContainerRuntime, "exec" | "resolvePort">;

export interface SshConnectionOptions {
  hostKey: SshHostKey;
  /** The public keys (type and base64 blob, and the account's id for each) that may authenticate this connection. */
  keys: { id?: string; type: string; blob: string }[];
  instanceId: string;
  runtime: SshRuntime;
  log: Logger;
  /** Called on each sign of a person using the instance (a session opened, input typed). */
  onActivity?: () => void;
  /** Called once the connection has authenticated, with the id of the key that did it. */
  onKeyUsed?: (keyId: string) => void;
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "::1"]);

/** Where images keep OpenSSH's sftp-server: Debian and Ubuntu, RHEL and Fedora, Alpine and Arch, others. */
export const SFTP_SERVER_PATHS = ["/usr/lib/openssh/sftp-server", "/usr/libexec/openssh/sftp-server", "/usr/lib/ssh/sftp-server", "/usr/libexec/sftp-server", "/usr/lib/sftp-server"];

/** Why an image without one cannot serve sftp (and scp, which speaks sftp), and what to do instead. */
export const NO_SFTP_SERVER =
  "this image has no sftp-server (sftp and scp need one): install it in the image (Debian and Ubuntu: openssh-sftp-server), or copy files with gpu cp";

/** The subsystem's command: the first sftp-server the image has, else that message on stderr and status 127. */
export const SFTP_COMMAND =
  `for server in ${SFTP_SERVER_PATHS.join(" ")}; do if [ -x "$server" ]; then exec "$server"; fi; done; echo "${NO_SFTP_SERVER}" >&2; exit 127`;

/** A connection's options and what ends it from the agent's side. */
type ConnectionContext = SshConnectionOptions & { ender: SessionEnder };

/** Serves one connection; the answer ends it from the agent's side, saying why (its instance going away). */
export function serveSshConnection(socket: Duplex, options: SshConnectionOptions): SessionEnder {
  const config = { hostKeys: [options.hostKey.privateKey], ident: "gpu-rental", algorithms: { cipher: SSH_CIPHERS } };
  const ender = new SessionEnder(() => socket.destroy());
  const server = new ssh2.Server(config as ConstructorParameters<typeof ssh2.Server>[0], (client) => handleClient(client, { ...options, ender }));
  server.on("error", (error: Error) => options.log.info("ssh connection ended", { instance_id: options.instanceId, error: error.message }));
  server.injectSocket(socket as never);
  return ender;
}

function authenticate(ctx: AuthContext, { keys, onKeyUsed }: SshConnectionOptions): void {
  if (ctx.method !== "publickey") return ctx.reject(["publickey"]);
  const offered = ctx.key.data;
  const match = keys.find((key) => Buffer.from(key.blob, "base64").equals(offered));
  if (!match) return ctx.reject(["publickey"]);
  // Without a signature the client only asks whether the key would do: not a use yet.
  if (!ctx.signature) return ctx.accept();
  const publicKey = ssh2.utils.parseKey(`${match.type} ${match.blob}`);
  if (publicKey instanceof Error || ctx.blob === undefined || publicKey.verify(ctx.blob, ctx.signature, ctx.hashAlgo) !== true) return ctx.reject(["publickey"]);
  if (match.id !== undefined) onKeyUsed?.(match.id);
  ctx.accept();
}

function handleClient(client: Connection, options: ConnectionContext): void {
  const ids = { instance_id: options.instanceId };
  options.ender.connected(() => client.end());
  client.on("authentication", (ctx) => authenticate(ctx, options));
  client.on("error", (error) => options.log.info("ssh connection ended", { ...ids, error: error.message }));
  client.on("ready", () => {
    options.log.info("ssh session opened", ids);
    // At most MAX_CHANNELS open at once, each within its capped window (channel-limits.ts).
    const slots = new ChannelSlots();
    client.on("session", (accept, reject) => {
      if (!slots.take()) return reject();
      const session = accept();
      session.once("close", () => slots.free());
      openSession(session, options);
    });
    client.on("tcpip", (accept, reject, info) => {
      if (!LOOPBACK.has(info.destIP) || !isPort(info.destPort) || !slots.take()) return reject();
      const refuse = () => {
        slots.free();
        reject();
      };
      options.runtime.resolvePort(options.instanceId, info.destPort).then(
        (endpoint) => (endpoint ? forwardPort(accept(), endpoint.host, endpoint.port, slots) : refuse()),
        refuse,
      ).catch((error: unknown) => options.log.warn("ssh forward failed", { ...ids, error: String(error) }));
    });
    // Remote forwarding and the like: refused.
    client.on("request", (_accept, reject) => reject?.());
  });
}

function forwardPort(channel: ServerChannel | undefined, host: string, port: number, slots: ChannelSlots): void {
  // ssh2 answers a channel's accept only once, with no channel after its connection ended.
  if (!channel) return slots.free();
  capWindow(channel);
  channel.once("close", () => slots.free());
  const upstream = connect(port, host);
  channel.pipe(upstream).pipe(channel);
  upstream.on("error", () => channel.close());
  channel.on("error", () => upstream.destroy());
  channel.on("close", () => upstream.destroy());
}

function openSession(session: Session, options: ConnectionContext): void {
  const request: ExecRequest = { command: null, env: {}, pty: null };
  let resize: ((cols: number, rows: number) => void) | null = null;
  session.on("pty", (accept, reject, info) => {
    const size = requestedTerminal(info.cols, info.rows);
    if (!size || (info.term && !isEnvValue(info.term))) return reject?.();
    request.pty = size;
    if (info.term) request.env.TERM = info.term;
    accept?.();
  });
  session.on("env", (accept, reject, info) => {
    if (!envAllowed(info.key, info.val, Object.keys(request.env).length)) return reject?.();
    request.env[info.key] = info.val;
    accept?.();
  });
  session.on("window-change", (accept, reject, info) => {
    const size = changedTerminal(info.cols, info.rows);
    if (!size) return reject?.();
    if (request.pty) request.pty = size;
    resize?.(size.cols, size.rows);
    accept?.();
  });
  const start = (channel: ServerChannel | undefined, started: ExecRequest) => {
    // A second shell or exec on a session that has one gets no channel from ssh2: nothing to run.
    if (!channel) return;
    channel.on("error", (error: Error) => options.log.info("ssh channel ended", { instance_id: options.instanceId, error: error.message }));
    run(channel, started, options, (fn) => (resize = fn)).catch((error: unknown) => {
      options.log.warn("ssh session failed", { instance_id: options.instanceId, error: String(error) });
      channel.close();
    });
  };
  session.on("shell", (accept) => start(accept(), { ...request, command: null }));
  session.on("exec", (accept, _reject, info) => start(accept(), { ...request, command: info.command }));
  session.on("subsystem", (accept, reject, info) => {
    if (info.name !== "sftp") return reject();
    start(accept(), { ...request, command: SFTP_COMMAND, pty: null });
  });
  session.on("auth-agent", (_accept, reject) => reject?.());
  session.on("x11", (_accept, reject) => reject?.());
}

async function run(channel: ServerChannel, request: ExecRequest, options: ConnectionContext, onResize: (fn: (cols: number, rows: number) => void) => void): Promise<void> {
  capWindow(channel);
  options.onActivity?.();
  const process = options.ender.reason !== null ? null : await options.runtime.exec(options.instanceId, request).catch((error: unknown) => {
    options.log.warn("ssh session could not start", { instance_id: options.instanceId, error: String(error) });
    return null;
  });
  if (!process) {
    channel.stderr.write(`${options.ender.reason ?? "the instance is not running"}\r\n`);
    channel.exit(255);
    return void channel.end();
  }
  const untrack = options.ender.track(channel.stderr, () => process.kill());
  onResize((cols, rows) => process.resize(cols, rows));
  channel.on("data", () => options.onActivity?.());
  // The process may end while the client still types: what it can no longer take is dropped.
  process.stdin.on("error", () => undefined);
  channel.pipe(process.stdin);
  const outputs = [process.stdout, process.stderr].filter((stream) => stream !== null);
  process.stdout.pipe(channel, { end: false });
  process.stderr?.pipe(channel.stderr, { end: false });
  const drained = Promise.all(outputs.map((stream) => new Promise((resolve) => (stream.readableEnded ? resolve(null) : stream.once("end", resolve).once("close", resolve)))));
  channel.on("close", () => process.kill());
  const code = await process.exit;
  await drained;
  // A process ended by a signal (or an engine that cannot say) reads as 255, as sshd reports a lost
  // command; so does one the ender ended, whatever its own status (a shell told to stop may say 0).
  channel.exit(options.ender.reason !== null ? 255 : (code ?? 255));
  channel.end();
  untrack();
}
