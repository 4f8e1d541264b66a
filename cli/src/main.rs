fn main() {
    println!("{}", fastpath::active_tier());
}
