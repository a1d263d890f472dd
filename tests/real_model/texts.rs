//! The notes the real model is given: what a person captures (a task, one in Korean, a
//! checklist, a single word) and an article longer than the server's context.

use crate::xorshift::XorShift;

pub const ENGLISH: &str = "Call the plumber tomorrow morning about the leaking kitchen tap. \
Ask whether the washer or the whole cartridge needs replacing, and get a price before he comes.";

pub const KOREAN: &str =
    "내일 오전에 치과 예약 확인하기. 스케일링 비용이 보험으로 되는지 물어보고, \
오후에는 엄마한테 전화해서 주말 저녁 약속 정하기.";

pub const CHECKLIST: &str = "Packing for the Jeju trip\n\n\
- [ ] passport and boarding passes\n\
- [ ] rain jacket\n\
- [x] phone charger and adapter\n\
- [ ] hiking boots for Hallasan\n\
- [ ] sunscreen\n";

pub const ONE_WORD: &str = "Sourdough";

/// How the article begins: its title should come from here, the only part sure to fit.
const ARTICLE_OPENING: &str = "Restoring a wooden sailboat, one winter at a time.\n\n\
Three years ago I bought a 1962 wooden sloop that had spent a decade under a tarpaulin \
behind a boatyard shed. The planks were sound below the waterline, the deck leaked at every \
fitting, and the mast had a soft spot where a halyard block had trapped rain for years. \
These are my notes on what the restoration has taught me so far, written down so that I \
stop making the same mistakes every spring.\n\n";

/// An article of about `chars` characters: the opening, then varied paragraphs of prose
/// (sentences put together from parts by a seeded generator, so the text is the same on
/// every run and does not repeat itself the way one paragraph copied would).
pub fn article(chars: usize) -> String {
    const WHO: [&str; 8] = [
        "The old shipwright down the quay",
        "My neighbour, who races dinghies,",
        "A surveyor from the insurance company",
        "The woman who sells varnish at the chandlery",
        "A retired fisherman",
        "My brother, visiting for a weekend,",
        "The boatyard's foreman",
        "A forum of wooden-boat owners",
    ];
    const DID: [&str; 8] = [
        "told me to replace",
        "spent an afternoon showing me how to scarf",
        "warned me never to paint over",
        "laughed at the way I had caulked",
        "suggested I steam and bend",
        "measured, twice, the rot in",
        "found a cheaper source for",
        "helped me lift and refit",
    ];
    const WHAT: [&str; 8] = [
        "the cockpit coaming",
        "the oak frames near the mast step",
        "the bronze keel bolts",
        "the teak toe rails",
        "the garboard seam",
        "the cabin-top canvas",
        "the rudder's pintles",
        "the spruce boom",
    ];
    const THEN: [&str; 8] = [
        "It took most of February, because the glue will not cure below ten degrees.",
        "The wood we used came from a barn roof in the next valley.",
        "I learned that patience costs less than new timber.",
        "The hull smelled of linseed oil for weeks afterwards.",
        "We kept a notebook of every screw size, which saved a day later.",
        "Rain stopped the work twice, and a storm once took the tarpaulin.",
        "The result is not pretty, but it is dry, and dry is the point.",
        "By evening the harbour lights were on and my hands were black with tar.",
    ];
    let mut random = XorShift(0x5eed_b0a7);
    let mut text = String::from(ARTICLE_OPENING);
    let mut paragraph = 1;
    while text.chars().count() < chars {
        text.push_str(&format!("Week {paragraph}. "));
        for _ in 0..4 {
            text.push_str(&format!(
                "{} {} {}. {} ",
                WHO[random.below(WHO.len())],
                DID[random.below(DID.len())],
                WHAT[random.below(WHAT.len())],
                THEN[random.below(THEN.len())],
            ));
        }
        text.push_str("\n\n");
        paragraph += 1;
    }
    text
}
