// The launch form's "Volumes": each of the account's volumes as a checkbox; a chosen one gets its
// path and read-only. A refusal naming `volumes` (a path, a volume attached elsewhere) shows in the group.
import { useId } from "react";
import { useVolumes, type Volume } from "../../api/volumes.ts";
import { LoadError, Loading } from "../../components/query-state.tsx";
import { formatBytes } from "../../format/bytes.ts";
import { Link } from "../../router/router.tsx";
import { defaultVolumePath, type VolumeChoice } from "./launch-choices.ts";

interface VolumesFieldProps {
  chosen: VolumeChoice[];
  onChange: (chosen: VolumeChoice[]) => void;
  error: string | null;
}

export function VolumesField({ chosen, onChange, error }: VolumesFieldProps) {
  const volumes = useVolumes();
  const id = useId();
  const errorId = error ? `${id}-error` : undefined;
  const toggle = (volume: Volume, on: boolean) =>
    onChange(on ? [...chosen, { volumeId: volume.id, path: defaultVolumePath(volume.name, chosen), readOnly: false }] : chosen.filter((c) => c.volumeId !== volume.id));
  const change = (volumeId: string, update: Partial<VolumeChoice>) => onChange(chosen.map((c) => (c.volumeId === volumeId ? { ...c, ...update } : c)));
  return (
    <fieldset className={error ? "volume-choice field-invalid" : "volume-choice"} aria-describedby={[errorId, `${id}-hint`].filter(Boolean).join(" ")}>
      <legend>Volumes</legend>
      <p id={`${id}-hint`} className="field-hint">
        Optional: data kept apart from the host, seen at its path and saved as the instance stops, is destroyed, and periodically while it runs
      </p>
      {volumes.isPending && <Loading what="volumes" />}
      {volumes.isError && <LoadError what="volumes" error={volumes.error} />}
      {volumes.data?.length === 0 && (
        <p className="empty">
          No volumes yet: <Link to="/volumes">create one</Link> to keep data beyond this instance.
        </p>
      )}
      <ul className="plain">
        {volumes.data?.map((volume) => {
          const choice = chosen.find((c) => c.volumeId === volume.id);
          const writer = volume.attachments.find((attachment) => !attachment.read_only);
          return (
            <li key={volume.id}>
              <label className="check">
                <input
                  type="checkbox"
                  checked={choice !== undefined}
                  onChange={(e) => toggle(volume, e.target.checked)}
                  aria-describedby={`${id}-${volume.id}-about`}
                />
                {volume.name}
              </label>{" "}
              <span id={`${id}-${volume.id}-about`} className="muted">
                {volume.size_gb} GB, {formatBytes(volume.used_bytes)} used
                {writer && `; attached read-write to ${writer.instance_id}, so only read-only until that instance is destroyed`}
              </span>
              {choice && (
                <div className="volume-mount">
                  <label htmlFor={`${id}-${volume.id}-path`}>
                    Path<span className="visually-hidden"> of {volume.name}</span>
                  </label>
                  <input
                    id={`${id}-${volume.id}-path`}
                    type="text"
                    spellCheck={false}
                    value={choice.path}
                    onChange={(e) => change(volume.id, { path: e.target.value })}
                  />
                  <label className="check">
                    <input type="checkbox" checked={choice.readOnly} onChange={(e) => change(volume.id, { readOnly: e.target.checked })} />
                    Read-only<span className="visually-hidden"> for {volume.name}</span>
                  </label>
                </div>
              )}
            </li>
          );
        })}
      </ul>
      {error && (
        <p id={errorId} className="field-error">
          {error}
        </p>
      )}
    </fieldset>
  );
}
