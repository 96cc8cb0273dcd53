// The instance page's terminal: a login shell in the running container, drawn by xterm.js over the
// terminal WebSocket (the session cookie; the browser sends this page's Origin, which the service
// checks). Keystrokes go as text messages, the window's size as a resize message whenever it
// changes; the shell's output comes back as binary messages. Also the `gpu ssh` command to copy.
import { FitAddon } from "@xterm/addon-fit";
import { Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import { useEffect, useRef, useState } from "react";
import { CopyButton } from "../../components/copy-button.tsx";

export function TerminalPanel({ id, running }: { id: string; running: boolean }) {
  const [open, setOpen] = useState(false);
  const sshCommand = `npx gpu ssh ${id}`;
  return (
    <>
      <h2>Shell</h2>
      <p>
        From your machine: <code>{sshCommand}</code> <CopyButton text={sshCommand} label="Copy the ssh command" /> (add your key on the SSH keys page first).
      </p>
      {running && !open && (
        <button type="button" onClick={() => setOpen(true)}>
          Terminal
        </button>
      )}
      {!running && <p className="muted">The terminal opens while the instance runs.</p>}
      {running && open && <TerminalView id={id} onClose={() => setOpen(false)} />}
    </>
  );
}

function TerminalView({ id, onClose }: { id: string; onClose: () => void }) {
  const box = useRef<HTMLDivElement>(null);
  const [ended, setEnded] = useState<string | null>(null);

  useEffect(() => {
    const terminal = new Terminal({ cursorBlink: true, fontSize: 14, scrollback: 5_000 });
    const fit = new FitAddon();
    terminal.loadAddon(fit);
    terminal.open(box.current!);
    fit.fit();
    const url = new URL(`/v1/instances/${id}/terminal`, window.location.href);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    url.search = new URLSearchParams({ cols: String(terminal.cols), rows: String(terminal.rows) }).toString();
    const socket = new WebSocket(url);
    socket.binaryType = "arraybuffer";
    socket.onmessage = (event) => terminal.write(new Uint8Array(event.data as ArrayBuffer));
    socket.onclose = (event) => setEnded(event.reason || "The connection closed.");
    // Keys typed while the shell is still starting are sent once it is there, not dropped.
    const early: string[] = [];
    socket.onopen = () => {
      for (const keys of early.splice(0)) socket.send(keys);
    };
    const typed = terminal.onData((keys) => (socket.readyState === WebSocket.OPEN ? socket.send(keys) : early.push(keys)));
    const resized = terminal.onResize(({ cols, rows }) => socket.readyState === WebSocket.OPEN && socket.send(JSON.stringify({ type: "resize", cols, rows })));
    const follow = new ResizeObserver(() => fit.fit());
    follow.observe(box.current!);
    terminal.focus();
    return () => {
      follow.disconnect();
      typed.dispose();
      resized.dispose();
      socket.close(1000, "closed");
      terminal.dispose();
    };
  }, [id]);

  return (
    <div className="terminal-panel">
      <div ref={box} className="terminal" data-testid="terminal" />
      {ended && <p role="status">Terminal ended: {ended}</p>}
      <button type="button" onClick={onClose}>
        Close terminal
      </button>
    </div>
  );
}
