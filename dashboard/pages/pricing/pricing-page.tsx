// /pricing, open to anyone: the GPUs on offer with their price per GPU-hour and how many are free
// now, and what an instance can run. Visitors see it before they sign up.
import { usePricing } from "../../api/pricing.ts";
import { DataTable } from "../../components/data-table.tsx";
import { PageTitle } from "../../components/page-title.tsx";
import { LoadError, Loading } from "../../components/query-state.tsx";
import { formatDollars } from "../../format/money.ts";
import { Link } from "../../router/router.tsx";

export function PricingPage() {
  const pricing = usePricing();
  return (
    <section>
      <PageTitle title="GPUs and prices" />
      <p>
        Rent GPU servers by the hour from a prepaid balance, billed by the millisecond while they run. <Link to="/signup">Create an account</Link>{" "}
        to launch one.
      </p>
      {pricing.isPending && <Loading what="the prices" />}
      {pricing.isError && <LoadError what="the prices" error={pricing.error} />}
      {pricing.data && (
        <>
          <DataTable columns={["GPU", "Memory", "Per GPU-hour", "Free now"]} rows={pricing.data.gpus} rowKey={(gpu) => gpu.model} rowTestId="pricing-row">
            {(gpu) => (
              <>
                <td>{gpu.display_name}</td>
                <td>{gpu.vram_gb} GB</td>
                <td>{formatDollars(gpu.price_hour_micros)}</td>
                <td>{gpu.free_gpus}</td>
              </>
            )}
          </DataTable>
          <h2>What an instance can run</h2>
          <ul>
            {pricing.data.templates.map((template) => (
              <li key={template.id}>
                <strong>{template.name}</strong>: {template.description}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
