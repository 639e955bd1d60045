//! The container stack of the token walk: the kind (object or array) of every open
//! container, one bit a level.

/// A stack of container kinds (object or array), as a shift register: bit 0 of `inner` is
/// the top container, bit `j` the one `j` levels under it, for the 64 innermost levels; a push
/// shifts in, a pop shifts out, and the check after every value tests one bit.
/// Deeper levels shift on into `outer` (64 more) and then into `spill`.
pub(super) struct Containers {
    /// Bit `j`: the container `j` levels under the top (0 for the top) is an object.
    pub(super) inner: u64,
    /// Bit `j`: the container `64 + j` levels under the top is an object.
    outer: u64,
    /// The levels under the 128 innermost, outermost first; only with a depth limit raised
    /// past the default.
    spill: Vec<bool>,
    /// How many containers are open.
    pub(super) len: usize,
}

impl Containers {
    #[inline]
    pub(super) const fn new() -> Self {
        Self {
            inner: 0,
            outer: 0,
            spill: Vec::new(),
            len: 0,
        }
    }

    #[inline(always)]
    pub(super) fn push(&mut self, object: bool) {
        if self.len >= 64 {
            self.push_outer();
        }
        self.inner = (self.inner << 1) | u64::from(object);
        self.len += 1;
    }

    /// Moves the 64th level down into `outer` (and `outer`'s last into `spill`).
    #[cold]
    fn push_outer(&mut self) {
        if self.len >= 128 {
            self.spill.push(self.outer >> 63 != 0);
        }
        self.outer = (self.outer << 1) | (self.inner >> 63);
    }

    /// Pops the top; returns whether it was an object.
    #[inline(always)]
    pub(super) fn pop(&mut self) -> bool {
        let was = self.top();
        self.inner >>= 1;
        self.len -= 1;
        if self.len >= 64 {
            self.pop_outer();
        }
        was
    }

    /// Moves the level 64 under the new top back up from `outer` (and `spill` into `outer`).
    #[cold]
    fn pop_outer(&mut self) {
        self.inner |= (self.outer & 1) << 63;
        self.outer >>= 1;
        if self.len >= 128 {
            self.outer |= u64::from(self.spill.pop().unwrap_or(false)) << 63;
        }
    }

    /// Whether the top container is an object (meaningless while `len` is 0).
    #[inline(always)]
    pub(super) const fn top(&self) -> bool {
        self.inner & 1 != 0
    }
}

#[cfg(test)]
mod tests {
    use super::Containers;
    use crate::Error;
    use crate::scan::Kind;
    use crate::scan::tests::check;
    use crate::tests::xorshift;

    #[test]
    fn the_container_stack_agrees_with_a_vec_in_any_order_of_pushes_and_pops() {
        let mut state = 0x2545_F491_4F6C_DD1D_u64;
        let mut next = move || xorshift(&mut state);
        for _ in 0..50 {
            let mut stack = Containers::new();
            let mut model: Vec<bool> = Vec::new();
            // Walks up and down across the 128 inline levels.
            for _ in 0..2_000 {
                let r = next();
                if model.is_empty() || (r % 100 < 55 && model.len() < 400) {
                    let k = r & (1 << 40) != 0;
                    stack.push(k);
                    model.push(k);
                } else {
                    assert_eq!(stack.pop(), model.pop().unwrap());
                }
                assert_eq!(stack.len, model.len());
                if let Some(&top) = model.last() {
                    assert_eq!(stack.top(), top);
                }
            }
        }
    }

    #[test]
    fn the_container_stack_keeps_kinds_past_its_inline_levels() {
        for depth in [1, 2, 127, 128, 129, 300] {
            let kinds: Vec<bool> = (0..depth).map(|i| (i * 7 + i / 3) % 2 == 0).collect();
            let mut stack = Containers::new();
            for &k in &kinds {
                stack.push(k);
            }
            for &k in kinds.iter().rev() {
                assert_eq!(stack.top(), k);
                assert_eq!(stack.pop(), k);
            }
            assert_eq!(stack.len, 0);
        }
        // Mixed objects and arrays beyond 128 levels, through the scanner.
        let open: String = (0..300)
            .map(|i| if i % 3 == 0 { "{\"k\":" } else { "[" })
            .collect();
        let close: String = (0..300)
            .rev()
            .map(|i| if i % 3 == 0 { "}" } else { "]" })
            .collect();
        let text = format!("{open}1{close}");
        assert_eq!(check(&text, 1000), Ok(Kind::Object));
        let wrong = format!("{open}1{}", close.replacen('}', "]", 1));
        assert_eq!(check(&wrong, 1000), Err(Error::Syntax));
    }

    #[test]
    fn members_taken_whole_or_in_parts_validate_alike() {
        let values = [
            "\"\"",
            "\"v\"",
            "\"a\\\"b\"",
            "1",
            "{}",
            "[\"x\"]",
            "\"0123456789abc\"",
        ];
        for key_len in 0..18 {
            let key = "k".repeat(key_len);
            for value in values {
                for pad in 0..3 {
                    let text = format!("{{\"{key}\":{value},\"{}\":{value}}}", "p".repeat(pad * 7));
                    assert_eq!(check(&text, 8), Ok(Kind::Object), "{text}");
                    let spaced = text.replace(':', " : ").replace(',', " , ");
                    assert_eq!(check(&spaced, 8), Ok(Kind::Object), "{spaced}");
                }
            }
        }
        for (text, want) in [
            (r#"{"a":"b"x}"#, Error::Syntax),
            (r#"{"a":"b\q"}"#, Error::BadString),
            ("{\"a\":\"b\u{1}\"}", Error::BadString),
            (r#"{"a""b"}"#, Error::Syntax),
            (r#"{"a":"b",}"#, Error::Syntax),
            (r#"{"a":"b","c"}"#, Error::Syntax),
            (r#"{"a":"b"]"#, Error::Syntax),
            (r#"["a":"b"]"#, Error::Syntax),
            (r#"{"a":"b""#, Error::Truncated),
        ] {
            assert_eq!(check(text, 8), Err(want), "{text}");
        }
    }

    #[test]
    fn depth_limit_counts_containers() {
        let ok = format!("{}{}", "[".repeat(128), "]".repeat(128));
        assert_eq!(check(&ok, 128), Ok(Kind::Array));
        let deep = format!("{}{}", "[".repeat(129), "]".repeat(129));
        assert_eq!(check(&deep, 128), Err(Error::TooDeep));
        let huge = "[".repeat(1_000_000);
        assert_eq!(check(&huge, 128), Err(Error::TooDeep));
        assert_eq!(check(&huge, usize::MAX), Err(Error::Truncated));
    }

    #[test]
    fn an_empty_object_counts_as_a_level_too() {
        // `{}` skips the container stack (`Scanner::value`), not the limit.
        for (text, limit, want) in [
            ("{}", 0, Err(Error::TooDeep)),
            ("{}", 1, Ok(Kind::Object)),
            ("[{}]", 1, Err(Error::TooDeep)),
            ("[{}]", 2, Ok(Kind::Array)),
            (r#"{"a":{}}"#, 1, Err(Error::TooDeep)),
            (r#"{"a":{}}"#, 2, Ok(Kind::Object)),
            (r#"{"a": {}, "b":{} }"#, 2, Ok(Kind::Object)),
            ("{}}", 1, Err(Error::Syntax)),
            ("{}1", 1, Err(Error::Syntax)),
        ] {
            assert_eq!(check(text, limit), want, "{text} at {limit}");
        }
        // Read as a member value, at the limit and one past it.
        let mut sc = crate::scan::Scanner::new(br#"{"a":{}}"#, 2);
        assert_eq!(sc.enter_object(0), Ok(true));
        assert!(sc.key().is_ok());
        assert_eq!(sc.value(1), Ok(Kind::Object));
        assert_eq!(sc.member_end(), Ok(false));
        let mut sc = crate::scan::Scanner::new(br#"{"a":{}}"#, 1);
        assert_eq!(sc.enter_object(0), Ok(true));
        assert!(sc.key().is_ok());
        assert_eq!(sc.value(1), Err(Error::TooDeep));
    }
}
