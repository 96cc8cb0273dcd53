// /volumes: create a volume, see the account's volumes and what they cost, delete one (creating and deleting for the roles that may).
import { useMay } from "../../api/may.ts";
import { PageTitle } from "../../components/page-title.tsx";
import { CreateVolumeForm } from "./create-volume-form.tsx";
import { VolumeTable } from "./volume-table.tsx";

export function VolumesPage() {
  const mayCreate = useMay("POST /volumes");
  return (
    <section>
      <PageTitle title="Volumes" />
      <p>
        A volume is a directory kept in storage apart from any host: choose it when launching and the instance sees it at its path; it is saved
        as the instance stops or is destroyed, periodically while it runs, and on "Save now". Its data outlives every instance, moves to
        whichever host runs the next one, and takes uploads with <code>gpu cp ./data vol:&lt;name&gt;:/path</code> with no instance at all.
        Storage is charged by the hour for the bytes it keeps.
      </p>
      {mayCreate && <CreateVolumeForm />}
      <h2>Your volumes</h2>
      <VolumeTable />
    </section>
  );
}
