//! Static shortest-path routing by hop count, ties broken by the lower link
//! index, so routes are deterministic; without all-pairs tables.
//!
//! **The rule.** From `src` towards `dst`, take the lowest-indexed outgoing
//! link direction `l` whose far end is one hop closer to `dst`:
//! `dist(to(l), dst) == dist(src, dst) - 1`. (This is what a breadth-first
//! search from `src` that scans each node's links in index order picks as
//! the first hop: [`first_hops_from`], kept as the reference.)
//!
//! **Storing it in memory linear in the topology.** Most nodes of a large
//! topology are stubs: hosts on one access link, trees of them. Stripping
//! nodes with one neighbour, repeatedly, leaves the *core* (every node with
//! two or more neighbours left, i.e. the part with cycles) and hangs every
//! stripped node in a tree under one *anchor* (a core node, or the last
//! node left of a component that is a tree). Inside a tree there is one path
//! between two nodes: a packet goes down if its destination is below, else
//! up. Between anchors it follows the rule above on the core, whose table
//! towards each anchor is computed the first time a packet needs it (one
//! breadth-first search of the core, `|core|` entries). A dumbbell, a chain
//! or a star is all trees: no table at all.

use std::collections::VecDeque;

/// No route (different components, or a node towards itself).
pub const NO_ROUTE: u32 = u32::MAX;
const NONE: u32 = u32::MAX;

/// Next hops of the rule above for every node of a topology.
#[derive(Clone, Debug)]
pub struct Routes {
    /// Outgoing link directions of each node, in index order (CSR):
    /// `out_dirs[out_start[v]..out_start[v + 1]]`, with their far ends in
    /// `out_to`.
    out_start: Vec<u32>,
    out_dirs: Vec<u32>,
    out_to: Vec<u32>,
    /// What `next_hop` reads of each node, in one record per node.
    node: Vec<NodeRoute>,
    /// Tree children of each node in pre-order (CSR), to find which child's
    /// subtree holds a destination by binary search on `tin`.
    child_start: Vec<u32>,
    children: Vec<u32>,
    /// Index of a core node among the core nodes (NONE otherwise).
    core_index: Vec<u32>,
    core_nodes: Vec<u32>,
    /// Per core destination: every core node's next hop towards it,
    /// computed on first use.
    core_tables: Vec<Option<Box<[u32]>>>,
}

/// Where the trees lead: a link direction, or to the core table of an
/// anchor (the destination's), which says the next hop from a core node.
enum TreeHop {
    Link(u32),
    Core(u32),
}

/// A node's place in its tree: everything `next_hop` reads about a node,
/// together (32 bytes, aligned: one cache line), because with many flows
/// the destination's record is rarely in cache and separate arrays would
/// cost a miss each.
#[derive(Clone, Copy, Debug)]
#[repr(align(32))]
struct NodeRoute {
    component: u32,
    /// Tree parent of a stripped node (NONE for anchors), the link direction
    /// up to it and the one down from it.
    parent: u32,
    up_link: u32,
    down_link: u32,
    /// The anchor a node hangs under (itself for an anchor).
    anchor: u32,
    /// Pre-order interval `[tin, tout)` of the node's subtree.
    tin: u32,
    tout: u32,
}

/// How many ancestors of a destination `next_hop` tries before a binary
/// search of the children: stub trees are shallow, and a hub's children
/// (a dumbbell router's 100,000 hosts) are many.
const ANCESTORS_TRIED: usize = 4;

impl Routes {
    /// Routes for `n_nodes` nodes joined by the link directions
    /// `(from, to)`, indexed by link-direction id. Links are expected in both
    /// directions (every scenario link is).
    pub fn new(n_nodes: usize, link_dirs: &[(u32, u32)]) -> Self {
        let n = n_nodes;
        let (out_start, out_dirs, out_to) = out_adjacency(n, link_dirs);
        let outs = |v: usize| out_start[v] as usize..out_start[v + 1] as usize;

        // Components, by breadth-first search in node order.
        let mut component = vec![NONE; n];
        let mut queue = VecDeque::new();
        for s in 0..n {
            if component[s] != NONE {
                continue;
            }
            component[s] = s as u32;
            queue.push_back(s as u32);
            while let Some(v) = queue.pop_front() {
                for k in outs(v as usize) {
                    let w = out_to[k] as usize;
                    if component[w] == NONE {
                        component[w] = s as u32;
                        queue.push_back(w as u32);
                    }
                }
            }
        }

        // Strip nodes with one distinct neighbour left, repeatedly.
        let mut scratch = Vec::new();
        let degree_of = |v: usize, s: &mut Vec<u32>| distinct_neighbours(&out_to[outs(v)], s);
        let mut degree: Vec<u32> = (0..n).map(|v| degree_of(v, &mut scratch)).collect();
        let mut stripped = vec![false; n];
        let mut parent = vec![NONE; n];
        let mut strip: VecDeque<u32> = (0..n as u32).filter(|&v| degree[v as usize] == 1).collect();
        while let Some(v) = strip.pop_front() {
            let vi = v as usize;
            if stripped[vi] || degree[vi] != 1 {
                continue; // the last node of a tree component stays as its anchor
            }
            let p = outs(vi)
                .map(|k| out_to[k])
                .find(|&w| !stripped[w as usize])
                .expect("a node with one neighbour left has one");
            stripped[vi] = true;
            parent[vi] = p;
            let pd = &mut degree[p as usize];
            *pd -= 1;
            if *pd == 1 {
                strip.push_back(p);
            }
        }
        // The lowest-indexed link directions between a node and its parent,
        // up and down: one pass over every node's links in index order.
        let mut up_link = vec![NO_ROUTE; n];
        let mut down_link = vec![NO_ROUTE; n];
        for v in 0..n {
            for k in outs(v) {
                let t = out_to[k] as usize;
                if parent[v] == t as u32 && up_link[v] == NO_ROUTE {
                    up_link[v] = out_dirs[k];
                }
                if parent[t] == v as u32 && down_link[t] == NO_ROUTE {
                    down_link[t] = out_dirs[k];
                }
            }
        }
        // Children lists (CSR), in node order for now.
        let mut child_start = vec![0u32; n + 1];
        for &p in &parent {
            if p != NONE {
                child_start[p as usize + 1] += 1;
            }
        }
        for v in 0..n {
            child_start[v + 1] += child_start[v];
        }
        let mut children = vec![0u32; child_start[n] as usize];
        let mut fill = child_start.clone();
        for (v, &p) in parent.iter().enumerate() {
            if p != NONE {
                children[fill[p as usize] as usize] = v as u32;
                fill[p as usize] += 1;
            }
        }

        // Pre-order numbering from each anchor (children in node order, so
        // each children list is sorted by `tin`).
        let mut tin = vec![0u32; n];
        let mut tout = vec![0u32; n];
        let mut anchor = vec![NONE; n];
        let mut clock = 0u32;
        let mut stack: Vec<(u32, u32)> = Vec::new(); // (node, next child position)
        for a in 0..n as u32 {
            if parent[a as usize] != NONE {
                continue;
            }
            anchor[a as usize] = a;
            tin[a as usize] = clock;
            clock += 1;
            stack.push((a, child_start[a as usize]));
            while let Some(&mut (v, ref mut next)) = stack.last_mut() {
                if *next < child_start[v as usize + 1] {
                    let c = children[*next as usize];
                    *next += 1;
                    anchor[c as usize] = a;
                    tin[c as usize] = clock;
                    clock += 1;
                    stack.push((c, child_start[c as usize]));
                } else {
                    tout[v as usize] = clock;
                    stack.pop();
                }
            }
        }

        let mut core_index = vec![NONE; n];
        let mut core_nodes = Vec::new();
        for v in 0..n {
            if parent[v] == NONE && degree[v] >= 2 {
                core_index[v] = core_nodes.len() as u32;
                core_nodes.push(v as u32);
            }
        }
        let core_tables = vec![None; core_nodes.len()];
        let node = (0..n)
            .map(|v| NodeRoute {
                component: component[v],
                parent: parent[v],
                up_link: up_link[v],
                down_link: down_link[v],
                anchor: anchor[v],
                tin: tin[v],
                tout: tout[v],
            })
            .collect();
        Self {
            out_start,
            out_dirs,
            out_to,
            node,
            child_start,
            children,
            core_index,
            core_nodes,
            core_tables,
        }
    }

    pub fn n_nodes(&self) -> usize {
        self.node.len()
    }

    /// Whether a path joins `a` and `b` (links go both ways).
    pub fn connected(&self, a: u32, b: u32) -> bool {
        self.node[a as usize].component == self.node[b as usize].component
    }

    /// The link direction to take from `from` towards `dst` (NO_ROUTE if
    /// none, or if `from == dst`).
    #[inline]
    pub fn next_hop(&mut self, from: u32, dst: u32) -> u32 {
        match self.tree_hop(from, dst) {
            TreeHop::Link(l) => l,
            TreeHop::Core(anchor) => self.core_next_hop(from, anchor),
        }
    }

    /// `next_hop` if it needs no core table that is not built yet (for
    /// prefetching: never builds one).
    #[inline]
    pub fn next_hop_if_built(&self, from: u32, dst: u32) -> Option<u32> {
        match self.tree_hop(from, dst) {
            TreeHop::Link(l) => Some(l),
            TreeHop::Core(anchor) => {
                let table = self.core_tables[self.core_index[anchor as usize] as usize].as_ref()?;
                Some(table[self.core_index[from as usize] as usize])
            }
        }
    }

    /// The part of `next_hop` that the trees answer.
    #[inline(always)]
    fn tree_hop(&self, from: u32, dst: u32) -> TreeHop {
        let (f, d) = (self.node[from as usize], self.node[dst as usize]);
        if from == dst || f.component != d.component {
            return TreeHop::Link(NO_ROUTE);
        }
        if f.tin <= d.tin && d.tin < f.tout {
            // Below `from`: down its tree, through the child above `dst`,
            // found among dst's nearest ancestors or else by binary search.
            let mut below = d;
            for _ in 0..ANCESTORS_TRIED {
                if below.parent == from {
                    return TreeHop::Link(below.down_link);
                }
                below = self.node[below.parent as usize];
            }
            let kids = &self.children[self.child_start[from as usize] as usize
                ..self.child_start[from as usize + 1] as usize];
            let i = kids.partition_point(|&c| self.node[c as usize].tin <= d.tin);
            return TreeHop::Link(self.node[kids[i - 1] as usize].down_link);
        }
        if f.parent != NONE {
            return TreeHop::Link(f.up_link);
        }
        // `from` is a core node; `dst` hangs under another anchor, which
        // every path to it crosses.
        TreeHop::Core(d.anchor)
    }

    /// Hint the route records `next_hop(from, dst)` reads into cache.
    #[inline]
    pub fn prefetch(&self, from: u32, dst: u32) {
        for v in [from, dst] {
            if let Some(r) = self.node.get(v as usize) {
                crate::sim::prefetch::prefetch(r);
            }
        }
    }

    #[cold]
    fn build_core_table(&mut self, target: u32) {
        let ct = self.core_index[target as usize] as usize;
        let m = self.core_nodes.len();
        let mut dist = vec![NONE; m];
        dist[ct] = 0;
        let mut queue = VecDeque::from([target]);
        while let Some(v) = queue.pop_front() {
            let dv = dist[self.core_index[v as usize] as usize];
            for k in self.out_start[v as usize] as usize..self.out_start[v as usize + 1] as usize {
                let ci = self.core_index[self.out_to[k] as usize];
                if ci != NONE && dist[ci as usize] == NONE {
                    dist[ci as usize] = dv + 1;
                    queue.push_back(self.out_to[k]);
                }
            }
        }
        let mut table = vec![NO_ROUTE; m].into_boxed_slice();
        for (c, &v) in self.core_nodes.iter().enumerate() {
            if dist[c] == NONE || dist[c] == 0 {
                continue;
            }
            table[c] = (self.out_start[v as usize] as usize
                ..self.out_start[v as usize + 1] as usize)
                .find(|&k| {
                    let ci = self.core_index[self.out_to[k] as usize];
                    ci != NONE && dist[ci as usize] + 1 == dist[c]
                })
                .map_or(NO_ROUTE, |k| self.out_dirs[k]);
        }
        self.core_tables[ct] = Some(table);
    }

    fn core_next_hop(&mut self, from: u32, target: u32) -> u32 {
        let ct = self.core_index[target as usize] as usize;
        if self.core_tables[ct].is_none() {
            self.build_core_table(target);
        }
        let table = self.core_tables[ct].as_ref().expect("built above");
        table[self.core_index[from as usize] as usize]
    }

    /// The next hop from `from` towards every node, by one breadth-first
    /// search: the rule `next_hop` must follow, for its tests.
    #[cfg(test)]
    pub fn first_hops_from(&self, from: u32) -> Vec<u32> {
        let n = self.n_nodes();
        let outs = |v: usize| self.out_start[v] as usize..self.out_start[v + 1] as usize;
        let mut first = vec![NO_ROUTE; n];
        let mut seen = vec![false; n];
        seen[from as usize] = true;
        let mut queue = VecDeque::new();
        for k in outs(from as usize) {
            let to = self.out_to[k];
            if !seen[to as usize] {
                seen[to as usize] = true;
                first[to as usize] = self.out_dirs[k];
                queue.push_back(to);
            }
        }
        while let Some(v) = queue.pop_front() {
            for k in outs(v as usize) {
                let to = self.out_to[k] as usize;
                if !seen[to] {
                    seen[to] = true;
                    first[to] = first[v as usize];
                    queue.push_back(to as u32);
                }
            }
        }
        first
    }
}

/// Outgoing link directions per node in index order (CSR).
fn out_adjacency(n: usize, link_dirs: &[(u32, u32)]) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32; n + 1];
    for &(from, _) in link_dirs {
        start[from as usize + 1] += 1;
    }
    for v in 0..n {
        start[v + 1] += start[v];
    }
    let mut fill = start.clone();
    let mut dirs = vec![0u32; link_dirs.len()];
    let mut to = vec![0u32; link_dirs.len()];
    for (i, &(f, t)) in link_dirs.iter().enumerate() {
        let k = fill[f as usize] as usize;
        dirs[k] = i as u32;
        to[k] = t;
        fill[f as usize] += 1;
    }
    (start, dirs, to)
}

/// Number of distinct nodes in `to` (parallel links count once); `scratch`
/// is reused.
fn distinct_neighbours(to: &[u32], scratch: &mut Vec<u32>) -> u32 {
    scratch.clear();
    scratch.extend_from_slice(to);
    scratch.sort_unstable();
    scratch.dedup();
    scratch.len() as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Both directions of each link `(a, b)`: 2i is a->b, 2i+1 is b->a.
    fn dirs(links: &[(u32, u32)]) -> Vec<(u32, u32)> {
        links.iter().flat_map(|&(a, b)| [(a, b), (b, a)]).collect()
    }

    /// The routing rule written out: hop distances to `dst` by a
    /// breadth-first search, then the lowest-indexed link direction one hop
    /// closer.
    fn rule(n: usize, dirs: &[(u32, u32)], src: u32, dst: u32) -> u32 {
        let mut dist = vec![u32::MAX; n];
        dist[dst as usize] = 0;
        let mut queue = VecDeque::from([dst]);
        while let Some(v) = queue.pop_front() {
            for &(from, to) in dirs {
                // Links go both ways: a direction into v is a way out of v.
                if to == v && dist[from as usize] == u32::MAX {
                    dist[from as usize] = dist[v as usize] + 1;
                    queue.push_back(from);
                }
            }
        }
        if src == dst || dist[src as usize] == u32::MAX {
            return NO_ROUTE;
        }
        dirs.iter()
            .position(|&(from, to)| from == src && dist[to as usize] + 1 == dist[src as usize])
            .map_or(NO_ROUTE, |i| i as u32)
    }

    fn assert_follows_rule(n: usize, links: &[(u32, u32)]) {
        let d = dirs(links);
        let mut r = Routes::new(n, &d);
        for src in 0..n as u32 {
            let bfs = r.first_hops_from(src);
            for dst in 0..n as u32 {
                let want = rule(n, &d, src, dst);
                // The prefetcher's variant never builds a table, and knows
                // the route once `next_hop` has built what it needs.
                let built = r.core_tables.iter().flatten().count();
                let known = r.next_hop_if_built(src, dst);
                assert!(known.is_none_or(|l| l == want), "{src}->{dst} in {links:?}");
                assert_eq!(r.core_tables.iter().flatten().count(), built);
                assert_eq!(r.next_hop(src, dst), want, "{src}->{dst} in {links:?}");
                assert_eq!(r.next_hop_if_built(src, dst), Some(want));
                assert_eq!(bfs[dst as usize], want, "bfs {src}->{dst} in {links:?}");
                assert_eq!(r.connected(src, dst), src == dst || want != NO_ROUTE);
            }
        }
    }

    #[test]
    fn line_and_square() {
        // 0 - 1 - 2, and a longer detour 0 - 3 - 4 - 2.
        let links = [(0, 1), (1, 2), (0, 3), (3, 4), (4, 2)];
        let mut r = Routes::new(5, &dirs(&links));
        assert_eq!(r.next_hop(0, 2), 0); // via 1
        assert_eq!(r.next_hop(2, 0), 3); // 2->1
        assert_eq!(r.next_hop(3, 2), 6); // 3->4
        assert_eq!(r.next_hop(0, 0), NO_ROUTE);
        assert_follows_rule(5, &links);
    }

    #[test]
    fn equal_cost_paths_take_the_lower_link_index() {
        // 0 -> 3 by 1 or by 2, both two hops: the first link (0-1) wins.
        assert_follows_rule(4, &[(0, 1), (0, 2), (1, 3), (2, 3)]);
        let mut r = Routes::new(4, &dirs(&[(0, 2), (0, 1), (1, 3), (2, 3)]));
        assert_eq!(r.next_hop(0, 3), 0); // now 0-2 is link 0
    }

    #[test]
    fn parallel_links_take_the_lower_index_in_trees_and_cores() {
        assert_follows_rule(2, &[(0, 1), (1, 0)]);
        assert_follows_rule(4, &[(0, 1), (1, 2), (2, 1), (2, 0), (3, 2)]);
    }

    #[test]
    fn disconnected_has_no_route() {
        let mut r = Routes::new(3, &[(0, 1), (1, 0)]);
        assert_eq!(r.next_hop(0, 2), NO_ROUTE);
        assert!(!r.connected(0, 2));
        assert_follows_rule(7, &[(0, 1), (1, 2), (2, 0), (3, 4), (4, 5)]);
    }

    #[test]
    fn a_dumbbell_keeps_no_core_table() {
        // s0, s1 - R1 - R2 - d0, d1: all trees.
        let links = [(0, 2), (1, 2), (2, 3), (3, 4), (3, 5)];
        let r = Routes::new(6, &dirs(&links));
        assert!(r.core_nodes.is_empty());
        assert_follows_rule(6, &links);
    }

    #[test]
    fn deep_trees_under_a_wide_hub() {
        // A hub 0 with five leaves and a chain 0-6-7-...-15 under it: a
        // destination deeper than ANCESTORS_TRIED below a node is found by
        // the binary search of that node's children.
        let mut links: Vec<(u32, u32)> = (1..7).map(|v| (0, v)).collect();
        links.extend((6..15).map(|v| (v, v + 1)));
        assert_follows_rule(16, &links);
    }

    /// Random topologies: a random tree (so that stripping has work to do)
    /// plus random extra links (cycles, parallel links), in a shuffled order.
    fn topology() -> impl Strategy<Value = (usize, Vec<(u32, u32)>)> {
        (2usize..24).prop_flat_map(|n| {
            let tree = proptest::collection::vec(any::<prop::sample::Index>(), n - 1);
            let extra = proptest::collection::vec((0..n as u32, 0..n as u32), 0..n);
            (Just(n), tree, extra).prop_flat_map(|(n, tree, extra)| {
                let mut links: Vec<(u32, u32)> = tree
                    .iter()
                    .enumerate()
                    .map(|(i, p)| ((i + 1) as u32, p.index(i + 1) as u32))
                    .collect();
                links.extend(extra.into_iter().filter(|(a, b)| a != b));
                (Just(n), Just(links).prop_shuffle())
            })
        })
    }

    proptest! {
        #[test]
        fn routes_follow_the_rule_on_random_topologies((n, links) in topology()) {
            assert_follows_rule(n, &links);
        }

        #[test]
        fn routes_follow_the_rule_on_random_forests(
            (n, links) in topology().prop_map(|(n, l)| {
                // Drop some links: forests, isolated nodes.
                let keep = l.len() * 2 / 3;
                (n, l.into_iter().take(keep).collect::<Vec<_>>())
            })
        ) {
            assert_follows_rule(n, &links);
        }
    }
}
