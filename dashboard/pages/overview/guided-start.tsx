// A new account's first steps, on the overview: add funds, launch, connect. Each step that is done
// disappears; with all three done the guide is gone. Funding is by card when payments are on, else
// in the operator's words (FUNDING_HELP). Connecting counts as done once this browser has shown an
// instance's page, where the ways to connect are (api/first-steps.ts). A role that may not take a step
// (a viewer launches nothing; a developer pays nothing) is not shown it.
import type { ReactNode } from "react";
import type { Me } from "../../api/account.ts";
import type { Instance } from "../../api/instances.ts";
import { connectSeen } from "../../api/first-steps.ts";
import { useMay } from "../../api/may.ts";
import { usePaymentConfig } from "../../api/payments.ts";
import { Link } from "../../router/router.tsx";

interface GuidedStartProps {
  me: Me;
  instances: readonly Instance[];
}

export function GuidedStart({ me, instances }: GuidedStartProps) {
  const config = usePaymentConfig();
  const mayPay = useMay("POST /billing/checkout");
  const mayLaunch = useMay("POST /instances");
  const mayConnect = useMay("POST /instances/{id}/ports/{port}/open");
  if (!config.data) return null;
  const live = instances.filter((instance) => instance.status !== "destroyed");
  const ready = live.find((instance) => instance.ports.some((port) => port.ready));
  const steps: { name: string; may: boolean; done: boolean; body: ReactNode }[] = [
    { name: "Add funds", may: mayPay, done: me.balance_micros > 0 || live.length > 0, body: <Funding paymentsOn={config.data.payments_enabled} help={config.data.funding_help} /> },
    { name: "Launch an instance", may: mayLaunch, done: live.length > 0, body: <><Link to="/launch">Launch</Link> a GPU with a model server, a notebook or your own image.</> },
    {
      name: "Connect to it",
      may: mayConnect,
      done: connectSeen(me.account.id),
      body: ready
        ? <>Your instance is ready: <Link to={`/instances/${ready.id}`}>open its page</Link> for its Open button, its proxy URL and a copyable snippet.</>
        : <>Once an instance is running, its page shows how to reach it: a web app's Open button, its proxy URL, and snippets for <code>curl</code> and the <code>openai</code> SDK.</>,
    },
  ];
  const open = steps.filter((step) => step.may && !step.done);
  if (open.length === 0) return null;
  return (
    <section aria-labelledby="guided-start">
      <h2 id="guided-start">Get started</h2>
      <ol className="steps" data-testid="guided-start">
        {open.map((step) => (
          <li key={step.name} data-testid="guided-step">
            <strong>{step.name}.</strong> {step.body}
          </li>
        ))}
      </ol>
    </section>
  );
}

/** How to add funds here: by card, or what the operator says (a URL in it becomes a link). */
function Funding({ paymentsOn, help }: { paymentsOn: boolean; help: string }) {
  if (paymentsOn) return <><Link to="/billing">Add funds</Link> by card on the billing page.</>;
  if (!help) return <>Ask the operator of this service to credit your account.</>;
  const url = /https?:\/\/\S+/.exec(help)?.[0];
  if (!url) return <>{help}</>;
  const [before, after] = [help.slice(0, help.indexOf(url)), help.slice(help.indexOf(url) + url.length)];
  return <>{before}<a href={url}>{url}</a>{after}</>;
}
