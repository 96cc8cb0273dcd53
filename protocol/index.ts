// The MachineDO <-> host-agent wire protocol: the only code both sides share.
export * from "./version.ts";
export * from "./messages.ts";
export * from "./frames.ts";
export * from "./codec.ts";
