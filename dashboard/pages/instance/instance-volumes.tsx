// The instance's volumes: each one's name (a link to its page), path, mode, version and when saved,
// and "Save now" for a read-write one (to the roles that may). A refusal (409 not_running while not running) is the API's words.
import { formError } from "../../api/api-errors.ts";
import type { Instance } from "../../api/instances.ts";
import { useSaveVolume, useVolumes } from "../../api/volumes.ts";
import { useMay } from "../../api/may.ts";
import { DataTable } from "../../components/data-table.tsx";
import { FormError } from "../../components/form-error.tsx";
import { formatTime } from "../../format/time.ts";
import { Link } from "../../router/router.tsx";

export function InstanceVolumes({ instance }: { instance: Instance }) {
  return instance.volumes.length === 0 ? null : <VolumeMounts instance={instance} />;
}

/** The mounts, with each volume's name and version from the account's volumes (asked for only by an instance that has some). */
function VolumeMounts({ instance }: { instance: Instance }) {
  const volumes = useVolumes();
  const save = useSaveVolume();
  const maySave = useMay("POST /volumes/{id}/save");
  const volumeOf = (id: string) => volumes.data?.find((volume) => volume.id === id);
  return (
    <>
      <h2>Volumes</h2>
      <DataTable
        columns={["Volume", "Path", "Mode", "Version", "Saved", { text: "Save now", visuallyHidden: true }]}
        rows={instance.volumes}
        rowKey={(mount) => mount.volume_id}
        rowTestId="instance-volume"
      >
        {(mount) => {
          const volume = volumeOf(mount.volume_id);
          return (
            <>
              <td>
                {/* A volume deleted since (the instance is gone too) is its id alone. */}
                {volume ? <Link to={`/volumes/${volume.id}`}>{volume.name}</Link> : <code>{mount.volume_id}</code>}
              </td>
              <td>
                <code>{mount.path}</code>
              </td>
              <td>{mount.read_only ? "read-only" : "read-write"}</td>
              <td>{volume?.version ?? "–"}</td>
              <td>{volume ? (volume.saved_at ? formatTime(volume.saved_at) : "never") : "–"}</td>
              <td>
                {maySave && !mount.read_only && (
                  <button type="button" onClick={() => save.mutate(mount.volume_id)} disabled={save.isPending || instance.status === "destroyed"} aria-describedby="save-now-note">
                    Save now
                  </button>
                )}
              </td>
            </>
          );
        }}
      </DataTable>
      <p id="save-now-note" className="note">
        A read-write volume is saved as the instance stops or is destroyed and periodically while it runs; Save now saves what changed at once. Only
        changed data is sent, and the version grows once it is stored.
      </p>
      <FormError message={formError(save.error, [])} />
      {save.isSuccess && !save.isPending && (
        <p role="status" className="muted">
          Saving {volumeOf(save.variables)?.name ?? save.variables}: if anything changed, its version grows once the host has stored it, and the events say so.
        </p>
      )}
    </>
  );
}
