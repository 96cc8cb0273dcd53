// /volumes/:id: one volume, kept current by polling: a scheduled deletion, details, growing it, its
// snapshots, and deleting it (asked first; the Volumes page once done); growing and deleting for the roles that may.
import { useState } from "react";
import { formError } from "../../api/api-errors.ts";
import { useMay } from "../../api/may.ts";
import { useDeleteVolume, useVolume } from "../../api/volumes.ts";
import { FormError } from "../../components/form-error.tsx";
import { PageTitle } from "../../components/page-title.tsx";
import { LoadError, Loading } from "../../components/query-state.tsx";
import { Link, navigate } from "../../router/router.tsx";
import { DeleteVolumeDialog } from "../volumes/delete-volume-dialog.tsx";
import { DeletionNotice } from "../volumes/volume-facts.tsx";
import { GrowForm } from "./grow-form.tsx";
import { SnapshotPanel } from "./snapshot-panel.tsx";
import { VolumeDetails } from "./volume-details.tsx";

export function VolumePage({ id }: { id: string }) {
  const volume = useVolume(id);
  const remove = useDeleteVolume();
  const [confirming, setConfirming] = useState(false);
  const mayGrow = useMay("PATCH /volumes/{id}");
  const mayDelete = useMay("DELETE /volumes/{id}");
  if (volume.isPending) return <Loading what="the volume" />;
  if (volume.isError) {
    return (
      <section>
        <PageTitle title="Volume" />
        <LoadError what={`volume ${id}`} error={volume.error} />
        <Link to="/volumes">All volumes</Link>
      </section>
    );
  }
  const data = volume.data;
  return (
    <section>
      <PageTitle title={data.name} />
      <DeletionNotice volume={data} />
      <VolumeDetails volume={data} />
      {mayGrow && <GrowForm volume={data} />}
      <SnapshotPanel volume={data} />
      {mayDelete && (
        <>
          <h2>Delete</h2>
          <div className="actions">
            <button type="button" className="danger" onClick={() => setConfirming(true)} disabled={remove.isPending}>
              Delete volume
            </button>
          </div>
        </>
      )}
      <FormError message={formError(remove.error, [])} />
      <DeleteVolumeDialog
        volume={confirming ? data : null}
        onCancel={() => setConfirming(false)}
        onConfirm={(doomed) => {
          setConfirming(false);
          remove.mutate(doomed.id, { onSuccess: () => navigate("/volumes") });
        }}
      />
    </section>
  );
}
