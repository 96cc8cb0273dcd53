// The create-key form's rights: "All rights" or some scopes as checkboxes (each named by its scope),
// when it expires, and optionally the instances it is kept to.
import { useId } from "react";
import { useInstances } from "../../api/instances.ts";
import { EXPIRIES, SCOPES, type Scope } from "./key-rights.ts";

interface Choice<T> {
  value: T;
  onChange: (value: T) => void;
  error?: string | null;
}

/** null: all rights. */
export function ScopesField({ value, onChange, error }: Choice<readonly Scope[] | null>) {
  const id = useId();
  const toggle = (scope: Scope, on: boolean) => onChange(on ? [...(value ?? []), scope] : (value ?? []).filter((s) => s !== scope));
  return (
    <fieldset className={error ? "volume-choice field-invalid" : "volume-choice"} aria-describedby={`${id}-hint`}>
      <legend>Scopes</legend>
      <p id={`${id}-hint`} className="field-hint">
        What the key may do, within your role: write implies use implies read. instances:use is what an application server needs.
      </p>
      <label className="check">
        <input type="checkbox" checked={value === null} onChange={(e) => onChange(e.target.checked ? null : [])} />
        All rights
      </label>
      <ul className="plain">
        {SCOPES.map((scope) => (
          <li key={scope}>
            <label className="check">
              <input
                type="checkbox"
                disabled={value === null}
                checked={value === null || value.includes(scope)}
                onChange={(e) => toggle(scope, e.target.checked)}
              />
              {scope}
            </label>
          </li>
        ))}
      </ul>
      {error && <p className="field-error">{error}</p>}
    </fieldset>
  );
}

/** An index into EXPIRIES. */
export function ExpiryField({ value, onChange, error }: Choice<number>) {
  const id = useId();
  return (
    <div className={error ? "field field-invalid" : "field"}>
      <label htmlFor={id}>Expires</label>
      <select id={id} value={value} onChange={(e) => onChange(Number(e.target.value))} aria-invalid={Boolean(error)}>
        {EXPIRIES.map((expiry, index) => (
          <option key={expiry.label} value={index}>
            {expiry.label}
          </option>
        ))}
      </select>
      {error && <p className="field-error">{error}</p>}
    </div>
  );
}

/** The instances chosen; none: every instance. */
export function InstancesField({ value, onChange, error }: Choice<readonly string[]>) {
  const id = useId();
  const instances = useInstances();
  const live = instances.data?.filter((instance) => instance.status !== "destroyed") ?? [];
  const toggle = (instanceId: string, on: boolean) => onChange(on ? [...value, instanceId] : value.filter((i) => i !== instanceId));
  return (
    <fieldset className={error ? "volume-choice field-invalid" : "volume-choice"} aria-describedby={`${id}-hint`}>
      <legend>Instances</legend>
      <p id={`${id}-hint`} className="field-hint">
        Optional: the key then reaches only these (others answer as if absent) and launches none. None chosen: every instance.
      </p>
      <ul className="plain">
        {live.map((instance) => (
          <li key={instance.id}>
            <label className="check">
              <input type="checkbox" checked={value.includes(instance.id)} onChange={(e) => toggle(instance.id, e.target.checked)} />
              {instance.label} <span className="muted">{instance.id}</span>
            </label>
          </li>
        ))}
      </ul>
      {error && <p className="field-error">{error}</p>}
    </fieldset>
  );
}
