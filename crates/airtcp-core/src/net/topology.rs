//! Static shortest-path routing, computed once before the run: breadth-first
//! search by hop count from every node, ties broken by the lower link index,
//! so routes are deterministic.

use std::collections::VecDeque;

/// `next_hop[src][dst]` is the link direction to take from `src` towards
/// `dst`, or `NO_ROUTE`.
pub const NO_ROUTE: u32 = u32::MAX;

/// Compute routing tables for `n_nodes` nodes joined by the given link
/// directions `(from, to)`, indexed by link-direction id.
pub fn shortest_path_routes(n_nodes: usize, link_dirs: &[(u32, u32)]) -> Vec<Vec<u32>> {
    // Outgoing adjacency in link-index order.
    let mut out: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n_nodes];
    for (i, &(from, to)) in link_dirs.iter().enumerate() {
        out[from as usize].push((i as u32, to));
    }
    let mut table = vec![vec![NO_ROUTE; n_nodes]; n_nodes];
    for src in 0..n_nodes {
        // BFS from src; first_link[v] is the first hop of the path to v.
        let mut first_link = vec![NO_ROUTE; n_nodes];
        let mut seen = vec![false; n_nodes];
        seen[src] = true;
        let mut q = VecDeque::new();
        for &(l, to) in &out[src] {
            if !seen[to as usize] {
                seen[to as usize] = true;
                first_link[to as usize] = l;
                q.push_back(to);
            }
        }
        while let Some(v) = q.pop_front() {
            for &(_, to) in &out[v as usize] {
                if !seen[to as usize] {
                    seen[to as usize] = true;
                    first_link[to as usize] = first_link[v as usize];
                    q.push_back(to);
                }
            }
        }
        table[src] = first_link;
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_square() {
        // 0 - 1 - 2, and a longer detour 0 - 3 - 4 - 2.
        let dirs = vec![
            (0, 1),
            (1, 0),
            (1, 2),
            (2, 1),
            (0, 3),
            (3, 0),
            (3, 4),
            (4, 3),
            (4, 2),
            (2, 4),
        ];
        let t = shortest_path_routes(5, &dirs);
        assert_eq!(t[0][2], 0); // via 1
        assert_eq!(t[2][0], 3); // 2->1
        assert_eq!(t[3][2], 6); // 3->4 (3->0->1->2 is also 3 hops? no: 3-4-2 is 2)
        assert_eq!(t[0][0], NO_ROUTE);
    }

    #[test]
    fn disconnected_has_no_route() {
        let t = shortest_path_routes(3, &[(0, 1), (1, 0)]);
        assert_eq!(t[0][2], NO_ROUTE);
    }
}
