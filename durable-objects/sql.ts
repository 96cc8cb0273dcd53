// One small tagged template over `ctx.storage.sql.exec`: values become bound parameters.
export type SqlValue = string | number | null | ArrayBuffer;
export type Sql = <Row = Record<string, SqlValue>>(strings: TemplateStringsArray, ...values: SqlValue[]) => Row[];

export function sqlFor(storage: DurableObjectStorage): Sql {
  return <Row,>(strings: TemplateStringsArray, ...values: SqlValue[]) =>
    storage.sql.exec(strings.join("?"), ...values).toArray() as Row[];
}
