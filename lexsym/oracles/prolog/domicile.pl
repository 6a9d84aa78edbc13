/*  11 U.S.C. § 522(b)(3)(A), the hanging paragraph of § 522(b)(3), and § 522(b)(2):
    allowable jurisdictions -- an independent second implementation in SWI-Prolog

    Source: 11 U.S.C. § 522(b)(1)-(3), read 2026-11-29; the same legal reading as
            encodings/domicile.lp, written again from the statute so that a property test
            (tests/test_domicile_prolog.py) can compare two programs that share no code.

    Input (the first six arguments of allowable/11):
      Petition   the petition date as an ordinal day number (Python's date.toordinal), so leap
                 days are already counted and this file only compares integers.
      Periods    a list of period(Place, Start, End): the debtor was domiciled in Place on every
                 day D with Start =< D < End. Place is a USPS code as an upper-case atom ('OR',
                 'DC') or 'FOREIGN' for outside the United States. A period may be empty
                 (Start = End: a move on the petition day).
      OptOut     optout(State, Scope) for each state that opted out on the petition date, with the
                 words of its opt-out (residents, domiciliaries, citizens, residents_180,
                 longer_180, filed_in_state, all). The caller reads them from statutes/opt_out.lp, so a
                 disagreement between the two implementations is about day counting, rule paths and
                 whom an opt-out reaches, never about the table itself.
      Reading    camp or literal: whether an opt-out bars only the debtors its words name.
      Residence  where the debtor is domiciled on the petition date (a place atom), or none.
      FiledIn    the state of the district the case is filed in, or none.

    Used: state/1 (below).

    Output: allowable(+Petition, +Periods, +OptOut, +Reading, +Residence, +FiledIn,
                      -Jurisdictions, -RulePath, -State, -Days730, -Days180)
      Jurisdictions  what this debtor alone may elect: the applicable state first, then 'US'.
      RulePath       '730', '180_whole', '180_longer' or hanging_paragraph.
      State          the state whose law § 522(b)(3)(A) points to, or none.
      Days730        Place-N pairs, sorted by place: N > 0 days domiciled in Place in the 730 days
                     before the petition (days Petition-730 .. Petition-1).
      Days180        the same for the 180 days before those (days Petition-910 .. Petition-731).

    Readings, each written again from the statute (2026-12-01), with the reason this program holds it:
    - "A longer portion ... than in any other place" is strictly more days than every other place;
      on a tie no place governs and the hanging paragraph gives the federal exemptions: a tie leaves
      no "longer" portion.
    - A day no period covers (a gap) counts for no place: nothing says where the debtor lived.
    - The first branch speaks of "a single State": 730 days abroad are not domicile in a State, so
      the 180-day step runs (a State there gives its law; a foreign place governs no exemption law).
    - An opt-out under Reading camp bars only the debtors its words reach: residents or citizens or
      domiciliaries (domiciled there on the petition date), Utah's residents_180 (also those who left
      fewer than 180 days before filing), Georgia's longer_180 (domiciled there for the longer
      portion of the 180 days before filing), Nebraska's filings in the state; "all" bars everyone. Under
      Reading literal every opt-out bars every debtor its state's law governs.

    Every predicate is deterministic: it succeeds exactly once for the modes documented.
*/

:- module(domicile, [allowable/11, days_in_window/4, governing_place/4, state/1]).

:- use_module(library(lists)).
:- use_module(library(pairs)).


/* ----- The two windows ------------------------------------------------------------------------

   window(?Window, +Petition, -From, -To): Window covers the days From =< D < To. The petition day
   itself is in neither window.
*/

% 11 U.S.C. § 522(b)(3)(A): "the 730 days immediately preceding the date of the filing of the petition".
window(w730, Petition, From, Petition) :-
    From is Petition - 730.

% 11 U.S.C. § 522(b)(3)(A): "the 180 days immediately preceding the 730-day period".
window(w180, Petition, From, To) :-
    From is Petition - 910,
    To is Petition - 730.


/* ----- Counting days in a window --------------------------------------------------------------

   days_in_window(+Periods, +From, +To, -Days): Days is the sorted list of Place-N pairs, N > 0,
   where N is the number of days in [From, To) on which the debtor was domiciled in Place. A place
   with several periods gets the sum of their days.
*/

days_in_window(Periods, From, To, Days) :-
    findall(Place-N,
            ( member(period(Place, Start, End), Periods),
              overlap(Start, End, From, To, N),
              N > 0
            ),
            Pieces),
    keysort(Pieces, Sorted),
    group_pairs_by_key(Sorted, Grouped),
    maplist(sum_days, Grouped, Days).

% overlap(+Start, +End, +From, +To, -N): days shared by [Start, End) and [From, To), possibly 0.
overlap(Start, End, From, To, N) :-
    N is max(0, min(End, To) - max(Start, From)).

sum_days(Place-Counts, Place-Total) :-
    sum_list(Counts, Total).


/* ----- 11 U.S.C. § 522(b)(3)(A): the governing place ------------------------------------------

   governing_place(+Days730, +Days180, -Place, -Path): the place whose law § 522(b)(3)(A) points
   to and the step that found it, or Place = none and Path = none when no step finds one. The
   steps are tried in the statute's order; each later step applies only when the earlier ones fail.
*/

governing_place(Days730, Days180, Place, Path) :-
    (   domiciled_whole_730(Days730, Found)
    ->  Place = Found, Path = '730'
    ;   domiciled_whole_180(Days180, Found)
    ->  Place = Found, Path = '180_whole'
    ;   longer_portion_of_180(Days180, Found)
    ->  Place = Found, Path = '180_longer'
    ;   Place = none, Path = none
    ).

% 11 U.S.C. § 522(b)(3)(A): "the place in which the debtor's domicile has been located for the 730
% days immediately preceding the date of the filing of the petition", read with the words that follow,
% "if the debtor's domicile has not been located in a single State for such 730-day period": the
% place must be a State.
domiciled_whole_730(Days730, Place) :-
    memberchk(Place-730, Days730),
    state(Place).

% 11 U.S.C. § 522(b)(3)(A): "or if the debtor's domicile has not been located in a single State for
% such 730-day period, the place in which the debtor's domicile was located for 180 days immediately
% preceding the 730-day period".
domiciled_whole_180(Days180, Place) :-
    memberchk(Place-180, Days180).

% 11 U.S.C. § 522(b)(3)(A): "or for a longer portion of such 180-day period than in any other place".
% Strictly longer than every other place: the most days, held by exactly one place.
longer_portion_of_180(Days180, Place) :-
    pairs_values(Days180, Counts),
    max_list(Counts, Most),
    findall(Candidate, member(Candidate-Most, Days180), [Place]).


/* ----- 11 U.S.C. § 522(b)(2), (b)(3) and its hanging paragraph: allowable jurisdictions ----- */

allowable(Petition, Periods, OptOut, Reading, Residence, FiledIn,
          Jurisdictions, RulePath, State, Days730, Days180) :-
    window(w730, Petition, From730, To730),
    days_in_window(Periods, From730, To730, Days730),
    window(w180, Petition, From180, To180),
    days_in_window(Periods, From180, To180, Days180),
    governing_place(Days730, Days180, Place, Path),
    (   state(Place)
    ->  State = Place,
        RulePath = Path,
        Recent is Petition - 180,
        days_in_window(Periods, Recent, Petition, DaysRecent),
        Debtor = debtor(Reading, Residence, FiledIn, DaysRecent),
        state_law_jurisdictions(State, OptOut, Debtor, Jurisdictions)
    ;   hanging_paragraph(State, RulePath, Jurisdictions)
    ).

% 11 U.S.C. § 522(b)(3)(A): the applicable State law, and
% 11 U.S.C. § 522(b)(2): the § 522(d) exemptions "unless the State law that is applicable to the
% debtor under paragraph (3)(A) specifically does not so authorize".
state_law_jurisdictions(State, OptOut, Debtor, Jurisdictions) :-
    (   memberchk(optout(State, Scope), OptOut),
        bars(Scope, State, Debtor)
    ->  Jurisdictions = [State]
    ;   Jurisdictions = [State, 'US']
    ).

% bars(+Scope, +State, +Debtor): the opt-out of State, worded for Scope, withholds § 522(d) from Debtor.
bars(_, _, debtor(literal, _, _, _)).
bars(all, _, debtor(camp, _, _, _)).
bars(Scope, State, debtor(camp, State, _, _)) :-
    memberchk(Scope, [residents, domiciliaries, citizens, residents_180]).
bars(residents_180, State, debtor(camp, _, _, DaysRecent)) :-
    memberchk(State-_, DaysRecent).
bars(filed_in_state, State, debtor(camp, _, State, _)).
bars(longer_180, State, debtor(camp, _, _, DaysRecent)) :-
    memberchk(State-Mine, DaysRecent),
    \+ ( member(Other-Theirs, DaysRecent), Other \== State, Theirs >= Mine ).

% 11 U.S.C. § 522(b)(3), hanging paragraph: "If the effect of the domiciliary requirement under
% subparagraph (A) is to render the debtor ineligible for any exemption, the debtor may elect to
% exempt property that is specified under subsection (d)." Reached when no place governs (a tie,
% no domicile recorded in the 180 days) or the governing place is outside the United States.
hanging_paragraph(none, hanging_paragraph, ['US']).


/* ----- The places that have State exemption law ------------------------------------------------

   state(?Place): the 50 States and the District of Columbia (11 U.S.C. § 101(52) counts D.C. as a
   State). 'FOREIGN' is not one.
*/

state('AL'). state('AK'). state('AZ'). state('AR'). state('CA'). state('CO'). state('CT').
state('DE'). state('DC'). state('FL'). state('GA'). state('HI'). state('ID'). state('IL').
state('IN'). state('IA'). state('KS'). state('KY'). state('LA'). state('ME'). state('MD').
state('MA'). state('MI'). state('MN'). state('MS'). state('MO'). state('MT'). state('NE').
state('NV'). state('NH'). state('NJ'). state('NM'). state('NY'). state('NC'). state('ND').
state('OH'). state('OK'). state('OR'). state('PA'). state('RI'). state('SC'). state('SD').
state('TN'). state('TX'). state('UT'). state('VT'). state('VA'). state('WA'). state('WV').
state('WI'). state('WY').
