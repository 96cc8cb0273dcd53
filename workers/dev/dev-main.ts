// The dev Worker's entry (wrangler.toml's top level: `npm run dev`, the workerd tests, the bench): the
// production Worker plus the bench's routes under /bench, and a MachineDO that also answers how many
// streams it has open. The deployments build ../main.ts instead, which imports nothing of this folder.
import { AccountDO } from "../../durable-objects/account/account-do.ts";
import { FleetDO } from "../../durable-objects/fleet/fleet-do.ts";
import { EmailDO } from "../../durable-objects/email/email-do.ts";
import { PaymentDO } from "../../durable-objects/payment/payment-do.ts";
import { PersonDO } from "../../durable-objects/person/person-do.ts";
import { createWorker } from "../worker.ts";
import { benchRoute } from "./bench-routes.ts";
import { DevMachineDO } from "./dev-machine-do.ts";

export { AccountDO, EmailDO, FleetDO, DevMachineDO as MachineDO, PaymentDO, PersonDO };

export default createWorker({ prefix: "/bench", route: benchRoute });
