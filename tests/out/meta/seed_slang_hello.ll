; ModuleID = "wgc"
target triple = "dxil-ms-dx"
target datalayout = ""

declare void @"MyGraphRoot"()

declare void @"MyChildNode"()

!dx.version = !{ !0 }
!dx.shaderModel = !{ !1 }
!dx.entryPoints = !{ !2, !10, !15 }
!wgc.spirv.entryPoints = !{ !16, !17 }
!wgc.experimental.tags = !{ !18, !19 }
!llvm.ident = !{ !20 }
!0 = !{ i32 1, i32 9 }
!1 = !{ !"lib", i32 6, i32 9 }
!2 = !{ null, !"", null, null, null }
!3 = !{ !"MyGraphRoot", i32 0 }
!4 = !{ i32 0, i32 4, i32 2, i32 4 }
!5 = !{ !"MyChildNode", i32 0 }
!6 = !{ i32 1, i32 6, i32 2, !4, i32 3, i32 1, i32 0, !5 }
!7 = !{ !6 }
!8 = !{ i32 1, i32 1, i32 1 }
!9 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !3, i32 16, i32 -1, i32 21, !7, i32 4, !8 }
!10 = !{ void ()* @"MyGraphRoot", !"MyGraphRoot", null, null, !9 }
!11 = !{ i32 1, i32 97, i32 2, !4 }
!12 = !{ !11 }
!13 = !{ i32 8, i32 8, i32 1 }
!14 = !{ i32 8, i32 15, i32 13, i32 1, i32 15, !5, i32 16, i32 -1, i32 18, !8, i32 20, !12, i32 4, !13 }
!15 = !{ void ()* @"MyChildNode", !"MyChildNode", null, null, !14 }
!16 = !{ void ()* @"MyGraphRoot", !"MyGraphRoot" }
!17 = !{ void ()* @"MyChildNode", !"MyChildNode" }
!18 = !{ !"NodeMaxLoopIterations", i32 131072 }
!19 = !{ !"NodeMaxRecordsPerLoopIteration", i32 131073 }
!20 = !{ !"wgc 0.1.0" }
