// Axis names as C++ types, and the compile-time list operations the typed tensor needs.
//
// An axis name is any empty struct (`struct Batch {};`); a tensor's layout is the ordered
// list Axes<Batch, In>. Everything here is evaluated by the compiler: a program that
// contracts or adds along the wrong axis does not compile, and nothing remains at run time.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

namespace forge::named {

template <typename... Names>
struct Axes {
    static constexpr std::size_t rank = sizeof...(Names);
};

// Is Name one of the axes?
template <typename Name, typename List> struct Contains;
template <typename Name, typename... Names>
struct Contains<Name, Axes<Names...>> : std::bool_constant<(std::is_same_v<Name, Names> || ...)> {};
template <typename Name, typename List>
inline constexpr bool contains_v = Contains<Name, List>::value;

// Position of Name in the list (the list must contain it).
template <typename Name, typename List> struct IndexOf;
template <typename Name, typename First, typename... Rest>
struct IndexOf<Name, Axes<First, Rest...>> {
    static constexpr int value = std::is_same_v<Name, First> ? 0 : 1 + IndexOf<Name, Axes<Rest...>>::value;
};
template <typename Name>
struct IndexOf<Name, Axes<>> {
    static constexpr int value = 0;  // not reached when contains_v holds (checked by callers)
};
template <typename Name, typename List>
inline constexpr int index_of_v = IndexOf<Name, List>::value;

// Two lists joined.
template <typename A, typename B> struct Concat;
template <typename... A, typename... B>
struct Concat<Axes<A...>, Axes<B...>> {
    using type = Axes<A..., B...>;
};
template <typename A, typename B>
using concat_t = typename Concat<A, B>::type;

// The list without Name.
template <typename Name, typename List> struct Remove;
template <typename Name>
struct Remove<Name, Axes<>> {
    using type = Axes<>;
};
template <typename Name, typename First, typename... Rest>
struct Remove<Name, Axes<First, Rest...>> {
    using rest = typename Remove<Name, Axes<Rest...>>::type;
    using type = std::conditional_t<std::is_same_v<Name, First>, rest, concat_t<Axes<First>, rest>>;
};
template <typename Name, typename List>
using remove_t = typename Remove<Name, List>::type;

// No name appears twice.
template <typename List> struct Unique;
template <>
struct Unique<Axes<>> : std::true_type {};
template <typename First, typename... Rest>
struct Unique<Axes<First, Rest...>>
    : std::bool_constant<!contains_v<First, Axes<Rest...>> && Unique<Axes<Rest...>>::value> {};
template <typename List>
inline constexpr bool unique_v = Unique<List>::value;

// The N-th name of the list.
template <std::size_t N, typename List> struct Nth;
template <std::size_t N, typename First, typename... Rest>
struct Nth<N, Axes<First, Rest...>> : Nth<N - 1, Axes<Rest...>> {};
template <typename First, typename... Rest>
struct Nth<0, Axes<First, Rest...>> {
    using type = First;
};

// Small is the trailing part of Big: NumPy broadcasting by name (a bias over Hidden adds to
// a [Batch, Hidden] tensor).
template <typename Small, typename Big>
constexpr bool is_suffix() {
    if constexpr (Small::rank > Big::rank) {
        return false;
    } else {
        return []<std::size_t... I>(std::index_sequence<I...>) {
            return (std::is_same_v<typename Nth<I, Small>::type,
                                   typename Nth<Big::rank - Small::rank + I, Big>::type> && ...);
        }(std::make_index_sequence<Small::rank>{});
    }
}
template <typename Small, typename Big>
inline constexpr bool is_suffix_v = is_suffix<Small, Big>();

}  // namespace forge::named
