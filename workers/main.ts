// The production Worker's entry (`wrangler deploy --env staging|production`): the request handling of
// worker.ts and the Durable Object classes. The dev Worker (dev/dev-main.ts: `npm run dev`, the tests,
// the bench) is another entry; nothing of it is in this one's bundle.
import { AccountDO } from "../durable-objects/account/account-do.ts";
import { FleetDO } from "../durable-objects/fleet/fleet-do.ts";
import { EmailDO } from "../durable-objects/email/email-do.ts";
import { MachineDO } from "../durable-objects/machine/machine-do.ts";
import { PaymentDO } from "../durable-objects/payment/payment-do.ts";
import { PersonDO } from "../durable-objects/person/person-do.ts";
import { createWorker } from "./worker.ts";

export { AccountDO, EmailDO, FleetDO, MachineDO, PaymentDO, PersonDO };

export default createWorker(null, { strongSecrets: true });
