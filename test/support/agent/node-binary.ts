// A Node that runs .ts files: the test runner's own when it strips types, else the repo's Node 22
// (`node_modules/.bin/vitest` started directly runs on the system Node, which may be older).
import { fileURLToPath } from "node:url";

const REPO_NODE = fileURLToPath(new URL("../../../node_modules/.bin/node", import.meta.url));

export const NODE_BINARY = process.features.typescript ? process.execPath : REPO_NODE;
