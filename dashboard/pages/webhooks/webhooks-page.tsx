// /settings/webhooks: add an endpoint (its signing secret shown this once), enable or disable one,
// send a test event, read its delivery log. Only owners and admins change them; everyone reads.
import { useMay } from "../../api/may.ts";
import { PageTitle } from "../../components/page-title.tsx";
import { CreateWebhookForm } from "./create-webhook-form.tsx";
import { WebhookTable } from "./webhook-table.tsx";

export function WebhooksPage() {
  const mayAdd = useMay("POST /webhooks");
  return (
    <section>
      <PageTitle title="Webhooks" />
      <p>
        Events (an instance&apos;s status changing, a port becoming ready, a stop for lack of funds, a low balance) are POSTed to your
        endpoints, signed the Standard Webhooks way. The signing secret is shown once, when the endpoint is added.
      </p>
      {mayAdd && <CreateWebhookForm />}
      <h2>Endpoints</h2>
      <WebhookTable />
    </section>
  );
}
