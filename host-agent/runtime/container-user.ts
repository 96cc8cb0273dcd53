// Which uid and gid a container's processes run as, from its configured user (the image's USER, as
// `docker run` reads it: `name`, `uid`, `name:group`, `uid:gid`, empty for root) and the image's own
// /etc/passwd and /etc/group: what a volume's working copy is owned by, so the container's user
// can write it as it writes its own files.

export interface ContainerUser {
  uid: number;
  gid: number;
}

/** `user` resolved against the passwd and group files' text ("" when the image has none); throws naming what is not there. */
export function resolveContainerUser(user: string, passwd: string, group: string): ContainerUser {
  const [userPart = "", groupPart] = user.split(":");
  const passwdEntry = findEntry(passwd, userPart, 2);
  let uid: number;
  if (userPart === "") uid = 0;
  else if (isId(userPart)) uid = Number(userPart);
  else if (passwdEntry) uid = Number(passwdEntry[2]);
  else throw new Error(`the image's user ${userPart} is not in its /etc/passwd`);
  let gid: number;
  if (groupPart !== undefined && isId(groupPart)) gid = Number(groupPart);
  else if (groupPart !== undefined) {
    const groupEntry = findEntry(group, groupPart, 2);
    if (!groupEntry) throw new Error(`the image's group ${groupPart} is not in its /etc/group`);
    gid = Number(groupEntry[2]);
  } else {
    // Without a group, the user's primary group; a uid the image does not list gets group 0, as the engine gives it.
    const entry = userPart === "" ? findEntry(passwd, "0", 2) : passwdEntry;
    gid = entry && isId(entry[3] ?? "") ? Number(entry[3]) : 0;
  }
  return { uid, gid };
}

const isId = (text: string) => /^\d{1,10}$/.test(text) && Number(text) <= 0xffffffff;

/** The line of a passwd or group file whose name (or, for a number, whose id at `idField`) is `key`, split at its colons. */
function findEntry(file: string, key: string, idField: number): string[] | undefined {
  if (key === "") return undefined;
  const entries = file.split("\n").map((line) => line.split(":")).filter((fields) => fields.length > idField);
  return entries.find((fields) => fields[0] === key) ?? (isId(key) ? entries.find((fields) => fields[idField] === key) : undefined);
}
