// A tree of ready JSON nodes (read-model `short` forms), written as bytes: an element's
// JSON is copied as it is; a group's JSON object gets `"Дети":[…]` before its closing brace.
// Linear in the nodes plus the sorting of each group's child groups.

export interface TreeGroup {
  readonly ref: string
  /** Parent group's ref, or '' at the root. */
  readonly parent: string
  readonly sortKey: string
  /** A JSON object, e.g. `{"Код":…,"ЭтоГруппа":true}`. */
  readonly json: Buffer
}

export interface TreeElement {
  readonly parent: string
  readonly json: Buffer
}

interface Node {
  readonly group: TreeGroup
  readonly groups: Node[]
  readonly elements: Buffer[]
}

const CHILDREN = Buffer.from(',"Дети":[')
const CLOSE = Buffer.from(']}')
const OPEN = Buffer.from('[')
const END = Buffer.from(']')
const COMMA = Buffer.from(',')

const bySortKey = (a: Node, b: Node): number =>
  a.group.sortKey < b.group.sortKey
    ? -1
    : a.group.sortKey > b.group.sortKey
      ? 1
      : a.group.ref < b.group.ref
        ? -1
        : a.group.ref > b.group.ref
          ? 1
          : 0

/**
 * Siblings: groups first, by name, then elements in the order given. A node whose parent
 * is not among `groups` is a root. A parent cycle (bad data) is cut at the member with
 * the least sort key, which becomes a root, so every node is printed exactly once.
 */
export function treeJson(groups: readonly TreeGroup[], elements: readonly TreeElement[]): Buffer {
  const nodes = new Map<string, Node>(groups.map((g) => [g.ref, { group: g, groups: [], elements: [] }]))
  const parentOf = new Map<string, string>()
  for (const g of groups) if (nodes.has(g.parent)) parentOf.set(g.ref, g.parent)
  breakCycles(nodes, parentOf)
  const roots: Node = { group: { ref: '', parent: '', sortKey: '', json: Buffer.alloc(0) }, groups: [], elements: [] }
  for (const node of nodes.values()) (nodes.get(parentOf.get(node.group.ref) ?? '') ?? roots).groups.push(node)
  for (const e of elements) (nodes.get(e.parent) ?? roots).elements.push(e.json)
  const parts: Buffer[] = [OPEN]
  // Depth-first with an explicit stack: a deep hierarchy cannot overflow the call stack.
  const stack: { node: Node; next: number }[] = [{ node: roots, next: 0 }]
  roots.groups.sort(bySortKey)
  while (stack.length > 0) {
    const top = stack.at(-1)!
    const { groups: kids, elements: leaves } = top.node
    const i = top.next++
    if (i > 0 && i < kids.length + leaves.length) parts.push(COMMA)
    if (i < kids.length) {
      const child = kids[i]!
      parts.push(child.group.json.subarray(0, child.group.json.length - 1), CHILDREN)
      child.groups.sort(bySortKey)
      stack.push({ node: child, next: 0 })
    } else if (i < kids.length + leaves.length) {
      parts.push(leaves[i - kids.length]!)
    } else {
      stack.pop()
      parts.push(stack.length > 0 ? CLOSE : END)
    }
  }
  return Buffer.concat(parts)
}

function breakCycles(nodes: ReadonlyMap<string, Node>, parentOf: Map<string, string>): void {
  const done = new Set<string>()
  for (const start of nodes.keys()) {
    const path: string[] = []
    const onPath = new Set<string>()
    let cur: string | undefined = start
    while (cur !== undefined && !done.has(cur)) {
      if (onPath.has(cur)) {
        const cycle = path.slice(path.indexOf(cur)).map((r) => nodes.get(r)!)
        cycle.sort(bySortKey)
        parentOf.delete(cycle[0]!.group.ref)
        break
      }
      path.push(cur)
      onPath.add(cur)
      cur = parentOf.get(cur)
    }
    for (const r of path) done.add(r)
  }
}
