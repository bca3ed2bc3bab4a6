"""A live class on the app's pages (docs/classroom.md): the teacher asks from any quiz, every student answers from a
phone, the class's answers meet the model's. The store and the question's record are the classroom package's
(classroom/store.py, classroom/question.py); here is what the pages draw of them.

    session.py       the store this process opens, the quiz's and the class's links, the teacher's class in this
                     session and browser (resumed after a reload), the sidebar's note
    questions.py     one view per kind of question: what a phone asks, its answer form, the class's chart, the
                     reveal — read by both screens from the same record
    teacher.py       the projector's panel under a quiz: start, the code and the count, reveal, next, end
    student.py       the Join page's body: join by code, answer, the answer at the reveal
    remote.py        the teacher's phone as the class's remote
    plan.py          the lesson plan: questions prepared in advance, walked one by one
    plan_memory.py   the lesson plan kept by the browser across reloads
"""
