// Version of the MachineDO <-> host-agent wire protocol. Bump on any incompatible change; the
// MachineDO refuses a hello whose version it does not speak.
export const PROTOCOL_VERSION = 1;

/** Credit each side grants per stream and direction before the peer must wait for a `window`. */
export const INITIAL_WINDOW_BYTES = 4 * 1024 * 1024;
/** A receiver returns credit once it has consumed this much since its last `window` frame. */
export const WINDOW_UPDATE_THRESHOLD = 512 * 1024;
/** Largest payload of one binary data frame; bigger chunks are split. */
export const MAX_DATA_FRAME_BYTES = 256 * 1024;
