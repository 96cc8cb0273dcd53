// Version of the MachineDO <-> host-agent wire protocol. Bump on any incompatible change; the
// MachineDO refuses a hello whose version it does not speak.
export const PROTOCOL_VERSION = 1;
