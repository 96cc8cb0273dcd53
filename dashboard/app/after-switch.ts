// Where the dashboard stays once the person switches to another of their accounts: on the same page,
// but for one thing of the account before (an instance, a volume), whose list it shows instead.
export function pageAfterSwitch(path: string): string {
  const [, section, id] = path.split("?")[0]!.split("/");
  return (section === "instances" || section === "volumes") && id ? `/${section}` : path;
}
