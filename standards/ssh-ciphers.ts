// The SSH ciphers the agent's server accepts (host-agent/ssh/ssh-server.ts), and the order in which
// `gpu ssh` and `gpu ssh-config` ask OpenSSH to offer them (cli/ssh/ssh-files.ts). The client's order
// decides (RFC 4253 §7.1), and OpenSSH's own puts aes128-ctr before AES-GCM: with CTR the agent pays
// an HMAC per packet as well, and a bulk download through the bridge went 10–20% slower
// (docs/benchmarks.md, "SSH through the bridge"). CTR stays accepted for clients without GCM.
// chacha20-poly1305 is left out: ssh2 runs it in JavaScript without its optional native add-on,
// which the agent's bundle does not carry.
export const SSH_CIPHERS = ["aes128-gcm@openssh.com", "aes256-gcm@openssh.com", "aes128-ctr", "aes192-ctr", "aes256-ctr"];
