// /launch: the launch form, once the GPUs, the catalog and the balance are known.
import { useMe } from "../../api/account.ts";
import { useCatalog, useGpus } from "../../api/catalog.ts";
import { PageTitle } from "../../components/page-title.tsx";
import { LoadError, Loading } from "../../components/query-state.tsx";
import { LaunchForm } from "./launch-form.tsx";

export function LaunchPage() {
  const gpus = useGpus();
  const catalog = useCatalog();
  const me = useMe();
  return (
    <section>
      <PageTitle title="Launch an instance" />
      {(gpus.isPending || catalog.isPending) && <Loading what="GPUs and templates" />}
      {gpus.isError && <LoadError what="GPUs" error={gpus.error} />}
      {catalog.isError && <LoadError what="the catalog" error={catalog.error} />}
      {gpus.data && catalog.data && (
        <LaunchForm gpus={gpus.data} templates={catalog.data.templates} models={catalog.data.models} balanceMicros={me.data?.balance_micros ?? 0} />
      )}
    </section>
  );
}
