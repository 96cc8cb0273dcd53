// The Node flags every launcher of the agent passes (deploy/host-agent's systemd unit, its
// `gpu-rental-agent` wrapper and its Dockerfile; the dev stack), kept the same by
// test/deploy/agent-node-flags.test.ts. V8's young generation starts small and grows only when much
// of it survives; under a stream's buffers little does, so it stayed small, a scavenge came every
// 850 KB or so allocated, the buffers in flight were promoted, and the old generation was marked and
// swept about 13 times a second: 40% of the agent's CPU in a proxied download or an SSH session
// (docs/benchmarks.md, "SSH through the bridge", 2026-11-28). With semi-spaces of 8 MiB from the start,
// a 256 MB transfer has one major collection and the agent half the CPU per MB. --expose-gc gives the
// agent V8's `gc`, to give relayed buffers back every few MiB (relayed-buffers.ts). NODE_OPTIONS
// cannot carry the first flag, so each launcher names both.
export const AGENT_NODE_FLAGS = ["--min-semi-space-size=8", "--expose-gc"];
